// One build in flight, which other resolvers of the same object wait for (internal).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - BuildAttempt

/// One run of a provider's factory, which other resolvers of the same provider wait for: synchronously
/// (a condition variable) or asynchronously (continuations). It ends once, with success or the error
/// that every waiter of this attempt receives; a later resolve makes a new attempt.
///
/// `@unchecked Sendable`: the class owns its mutex and condition, and `outcome` and `waiters` are only
/// touched while holding the mutex.
final class BuildAttempt: @unchecked Sendable {
    /// The frame of the build, for cycle detection across tasks.
    let builder: ResolutionFrame
    var label: String { builder.label }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// nil while running; then `.some(nil)` for success or `.some(error)`.
    private var outcome: ContextError??
    private var waiters: [CheckedContinuation<ContextError?, Never>] = []

    init(builder: ResolutionFrame) {
        self.builder = builder
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        mutex.deinitialize(count: 1)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Ends the attempt and wakes every waiter, outside the lock.
    func finish(_ error: ContextError?) {
        pthread_mutex_lock(mutex)
        outcome = .some(error)
        let resumed = waiters
        waiters = []
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        for waiter in resumed { waiter.resume(returning: error) }
    }

    /// Blocks the calling thread until the attempt ends; returns its error, if it failed.
    func wait() -> ContextError? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let outcome { return outcome }
            pthread_cond_wait(condition, mutex)
        }
    }

    /// Suspends until the attempt ends; returns its error, if it failed.
    func waitAsync() async -> ContextError? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ContextError?, Never>) in
            pthread_mutex_lock(mutex)
            if let outcome {
                pthread_mutex_unlock(mutex)
                continuation.resume(returning: outcome)
                return
            }
            waiters.append(continuation)
            pthread_mutex_unlock(mutex)
        }
    }
}
