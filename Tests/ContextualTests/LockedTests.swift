import Foundation
import Testing

@testable import Contextual

#if canImport(Glibc)
import Glibc
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

    @Test("Under ThreadSanitizer every lock tells it what it orders; elsewhere no lock does")
    func annotatedOnlyUnderThreadSanitizer() {
        // The sanitizer's runtime is in the process exactly when the tests run under it (CI runs this
        // suite both ways): its lock hand-overs in the kernel would otherwise read as races.
        let underThreadSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
        #expect((threadSanitizerAnnotations != nil) == underThreadSanitizer)
        let lock = Locked.make(0)
        let isAnnotated = lock.buffer.withUnsafeMutablePointerToElements { $0.pointee.isAnnotated }
        #expect(isAnnotated == underThreadSanitizer)
    }
}
