import Foundation
import Testing

@testable import Contextual

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Locked: the library's lock")
struct LockedTests {
    @Test("A lock section excludes every other, on threads that contend for it")
    func excludes() {
        // A plain (non-atomic) pair of counts: any two sections that overlap lose an increment or let
        // the two counts differ.
        struct Counts { var first = 0, second = 0 }
        let counts = Locked.make(Counts())
        let threads = 4
        let increments = 50_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<increments {
                counts.withLock { counts in
                    counts.first += 1
                    counts.second = counts.first
                }
            }
        }
        let final = counts.withLock { $0 }
        #expect(final.first == threads * increments)
        #expect(final.second == final.first)
    }

    @Test("A lock around no value runs its section while holding the lock")
    func lockAroundNoValue() {
        let lock = Locked.make(())
        let entered = Locked.make(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<10_000 {
                lock.withLock {
                    // Read and written in two steps: only exclusion keeps the count exact.
                    let seen = entered.withLock { $0 }
                    entered.withLock { $0 = seen + 1 }
                }
            }
        }
        #expect(entered.withLock { $0 } == 40_000)
    }

    @Test("A thread that waits for a held lock sees everything the holder wrote before giving it up")
    func waiterSeesHolderWrites() {
        // The holder keeps the lock long enough that the waiter stops spinning and sleeps in the kernel
        // (the hand-over ThreadSanitizer does not see by itself), and writes the lock's own value there.
        // Without the lock's announcements ThreadSanitizer reports that write and the waiter's read as a
        // race; a report does not fail `swift test` itself: CI's sanitizer steps fail on any report.
        for round in 1...5 {
            let value = Locked.make(0)
            let holding = DispatchSemaphore(value: 0)
            let holder = Thread {
                value.withLock { value in
                    holding.signal()
                    usleep(20_000)
                    value = round
                }
            }
            holder.start()
            holding.wait()
            let seen = value.withLock { $0 }
            #expect(seen == round)
        }
    }

    @Test("Under ThreadSanitizer every lock announces itself to it; elsewhere no lock does")
    func annotatedOnlyUnderThreadSanitizer() {
        // CI's ThreadSanitizer steps set CONTEXTUAL_EXPECT_THREAD_SANITIZER=1, so that a lookup that
        // finds nothing there fails here instead of leaving every lock unannounced.
        if ProcessInfo.processInfo.environment["CONTEXTUAL_EXPECT_THREAD_SANITIZER"] == "1" {
            #expect(threadSanitizerAnnotations != nil)
        }
        let underThreadSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
        #expect((threadSanitizerAnnotations != nil) == underThreadSanitizer)
        let lock = Locked.make(0)
        let isAnnotated = lock.buffer.withUnsafeMutablePointerToElements { $0.pointee.isAnnotated }
        #expect(isAnnotated == underThreadSanitizer)
    }
}
