// Tests of defaults that read keys: loops of defaults are reported, chains and waits are not.

import Contextual
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Keys

/// A default that reads its own key.
private enum SelfReadingKey: ContextKey {
    static var defaultValue: Int { Context.current[SelfReadingKey.self] + 1 }
}

/// A test value that reads its own key, in the test context that reads it.
private enum SelfReadingTestValueKey: ContextKey {
    static var defaultValue: Int { 0 }
    static var testValue: Int { Context.current[SelfReadingTestValueKey.self] + 1 }
}

/// Two defaults that read each other, on one thread.
private enum LoopAKey: ContextKey {
    static var defaultValue: Int { Context.current[LoopBKey.self] + 1 }
}

private enum LoopBKey: ContextKey {
    static var defaultValue: Int { Context.current[LoopAKey.self] + 1 }
}

/// Two defaults that read each other, each computed by a thread of its own: each starts, waits until
/// the other has started, then reads the other's key.
private enum CrossAKey: ContextKey {
    static var defaultValue: Int {
        crossAStarted.store(true, ordering: .sequentiallyConsistent)
        spinUntil(crossBStarted)
        return Context.current[CrossBKey.self] + 1
    }
}

private enum CrossBKey: ContextKey {
    static var defaultValue: Int {
        crossBStarted.store(true, ordering: .sequentiallyConsistent)
        spinUntil(crossAStarted)
        return Context.current[CrossAKey.self] + 1
    }
}

private let crossAStarted = Atomic<Bool>(false)
private let crossBStarted = Atomic<Bool>(false)

/// A chain without a loop: ChainA reads ChainB, which another thread computes slowly.
private enum ChainAKey: ContextKey {
    static var defaultValue: Int {
        chainAStarted.store(true, ordering: .sequentiallyConsistent)
        return Context.current[ChainBKey.self] + 1
    }
}

private enum ChainBKey: ContextKey {
    static var defaultValue: Int {
        chainBStarted.store(true, ordering: .sequentiallyConsistent)
        spinUntil(chainAStarted)
        usleep(50_000)  // ChainA's thread now waits for this computation
        return Context.current[ChainCKey.self] + 1
    }
}

private enum ChainCKey: ContextKey {
    static var defaultValue: Int { 40 }
}

private let chainAStarted = Atomic<Bool>(false)
private let chainBStarted = Atomic<Bool>(false)

/// A default that starts a task reading its own key, which waits for the computation to end: not a loop.
private enum SpawningKey: ContextKey {
    static var defaultValue: Int {
        spawned.withLock { $0 = Task { Context.current[SpawningKey.self] } }
        return 7
    }
}

private let spawned = Mutex<Task<Int, Never>?>(nil)

// MARK: - Helpers

/// Ends the process successfully after `seconds`: inside an exit test that expects a failure, a read
/// that hangs (the bug) then fails the test instead of hanging it.
private func exitSuccessfullyAfter(seconds: UInt32) {
    var thread = pthread_t()
    let created = pthread_create(
        &thread,
        nil,
        { seconds in
            sleep(UInt32(UInt(bitPattern: seconds)))
            exit(0)
        },
        UnsafeMutableRawPointer(bitPattern: UInt(seconds))
    )
    precondition(created == 0, "pthread_create failed with \(created)")
}

/// Runs `body` on a thread of its own, which is never joined.
private func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let created = pthread_create(
        &thread,
        nil,
        { raw in
            Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        },
        Unmanaged.passRetained(Work(body)).toOpaque()
    )
    precondition(created == 0, "pthread_create failed with \(created)")
}

// MARK: - Tests

@Suite("Defaults that read keys")
struct DefaultCycleTests {
    @Test("A default that reads its own key stops the process naming the key, instead of hanging")
    func selfLoop() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            exitSuccessfullyAfter(seconds: 60)
            Context.live().run { _ = Context.current[SelfReadingKey.self] }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("default value cycle: SelfReadingKey → SelfReadingKey."))
        #expect(
            stderr.contains(
                "The default value of 'SelfReadingKey' reads 'SelfReadingKey' itself before it is computed."
            )
        )
        #expect(stderr.contains("Fix: a key's `defaultValue` must not read its own key"))
    }

    @Test("A test value that reads its own key stops the process naming the key, instead of hanging")
    func testValueSelfLoop() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            exitSuccessfullyAfter(seconds: 60)
            let test = Context.testing(name: "self-reading")
            test.run { _ = test[SelfReadingTestValueKey.self] }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("test value cycle: SelfReadingTestValueKey → SelfReadingTestValueKey."))
        #expect(stderr.contains("Fix: a key's `testValue` must not read its own key"))
    }

    @Test("Two defaults that read each other stop the process with the loop in order, A → B → A")
    func twoKeyLoop() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            exitSuccessfullyAfter(seconds: 60)
            Context.live().run { _ = Context.current.child(name: "request")[LoopAKey.self] }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("default value cycle: LoopAKey → LoopBKey → LoopAKey."))
        #expect(
            stderr.contains(
                "The default value of 'LoopAKey' reads 'LoopBKey', which reads 'LoopAKey' again before it is computed."
            )
        )
    }

    @Test("Two defaults that read each other, computed by two threads at once, stop the process")
    func crossThreadLoop() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            exitSuccessfullyAfter(seconds: 60)
            let live = Context.live()
            startThread { live.run { _ = Context.current[CrossBKey.self] } }
            live.run { _ = Context.current[CrossAKey.self] }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr.contains("default value cycle: CrossAKey → CrossBKey → CrossAKey.")
                || stderr.contains("default value cycle: CrossBKey → CrossAKey → CrossBKey.")
        )
    }

    @Test("A default that reads a default another thread is computing waits for it: a chain is no loop")
    func chainAcrossThreadsIsNoLoop() async {
        async let b = onThread { Context.root[ChainBKey.self] }
        let a = await onThread {
            spinUntil(chainBStarted)
            return Context.root[ChainAKey.self]
        }
        #expect(await b == 41)
        #expect(a == 42)
    }

    @Test("A default that starts a task reading its own key is no loop: the task waits for the value")
    func spawnedTaskIsNoLoop() async {
        #expect(Context.root[SpawningKey.self] == 7)
        let task = spawned.withLock { $0 }
        #expect(await task?.value == 7)
    }
}
