// `ConditionLocked`: a value behind a pthread mutex with a condition, for threads that wait for it to change.
// Architecture: ARCHITECTURE.md, "Primitives".

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ConditionLocked

/// A value behind a `pthread_mutex_t`, with a `pthread_cond_t` on which threads wait for it to change.
/// A pthread mutex rather than the toolchain's (as ``Locked`` uses): a pthread condition waits on a pthread
/// mutex, and ThreadSanitizer intercepts both, so it needs no annotations.
///
/// ```swift
/// let done = ConditionLocked<Bool>(false)
/// done.withLockBroadcasting { $0 = true }     // on one thread
/// done.wait { $0 ? () : nil }                 // on another: returns once it is true
/// ```
///
/// Not final, so that a class that waits on its own state (``BuildAttempt``) can be one, and cost one
/// allocation less than holding one.
///
/// `@unchecked Sendable`: the class owns its mutex and condition, and `state` is only touched while
/// holding the mutex.
@usableFromInline
class ConditionLocked<State>: @unchecked Sendable {
    /// The mutex, then the condition, in one allocation: a lock is made per build, on a measured path.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var state: State

    /// Where the condition starts in the allocation: after the mutex, aligned for a condition.
    private static var conditionOffset: Int {
        let alignment = MemoryLayout<pthread_cond_t>.alignment
        return (MemoryLayout<pthread_mutex_t>.size + alignment - 1) / alignment * alignment
    }

    init(_ state: State) {
        self.state = state
        let memory = UnsafeMutableRawPointer.allocate(
            byteCount: Self.conditionOffset + MemoryLayout<pthread_cond_t>.size,
            alignment: max(MemoryLayout<pthread_mutex_t>.alignment, MemoryLayout<pthread_cond_t>.alignment)
        )
        mutex = memory.initializeMemory(as: pthread_mutex_t.self, repeating: pthread_mutex_t(), count: 1)
        condition = (memory + Self.conditionOffset)
            .initializeMemory(as: pthread_cond_t.self, repeating: pthread_cond_t(), count: 1)
        let mutexResult = pthread_mutex_init(mutex, nil)
        precondition(mutexResult == 0, "pthread_mutex_init failed with \(mutexResult)")
        let conditionResult = pthread_cond_init(condition, nil)
        precondition(conditionResult == 0, "pthread_cond_init failed with \(conditionResult)")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        mutex.deinitialize(count: 1)
        UnsafeMutableRawPointer(mutex).deallocate()
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Runs `body` with exclusive access to the state, then wakes every thread in ``wait(until:)``.
    func withLockBroadcasting<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&state)
    }

    /// Blocks the calling thread until `ready` returns a result for the state, or `limit` has passed
    /// (then nil). `ready` runs under the lock, first at once, then after each
    /// ``withLockBroadcasting(_:)``.
    func wait<Result>(until ready: (inout State) -> Result?, atMost limit: Duration) -> Result? {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let result = ready(&state) { return result }
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return ready(&state) }
        }
    }

    /// Blocks the calling thread until `ready` returns a result for the state, and returns it. `ready`
    /// runs under the lock, first at once, then after each ``withLockBroadcasting(_:)``.
    func wait<Result>(until ready: (inout State) -> Result?) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let result = ready(&state) { return result }
            pthread_cond_wait(condition, mutex)
        }
    }
}
