// `Locked`: a value behind a pthread mutex, which ThreadSanitizer sees.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Locked

/// A value behind a `pthread_mutex_t`, reachable only inside ``withLock(_:)``.
///
/// The toolchain's `Synchronization.Mutex` would do, but on Linux its lock lives in an uninstrumented
/// runtime library, so ThreadSanitizer does not see it and reports correctly locked accesses as races.
/// A pthread mutex is intercepted by ThreadSanitizer, which keeps `swift test --sanitize=thread` a real
/// check. Uncontended, both cost the same.
///
/// `@unchecked Sendable`: the class owns its mutex, and `state` is only touched while holding it.
@usableFromInline
final class Locked<State>: @unchecked Sendable {
    @usableFromInline
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline
    var state: State

    @usableFromInline
    init(_ state: State) {
        self.state = state
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed with \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state. `body` must not call back into this lock.
    @inlinable
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
