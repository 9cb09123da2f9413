// `Locked`: a value behind a pthread mutex, which ThreadSanitizer sees.
// Architecture: ARCHITECTURE.md, "Primitives".

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
/// The mutex is allocated with the value, after it (a `ManagedBuffer` with the value as its header and
/// the mutex as its one element): one allocation per lock, not two. Locks are made on paths that are
/// measured per request (a scope's store, a build's cell, a resolution frame).
///
/// ```swift
/// let counter = Locked.make(0)
/// counter.withLock { $0 += 1 }
/// ```
///
/// `@unchecked Sendable`: it owns its mutex (in ``LockedBuffer``, which nothing else references), and the
/// value is only touched while holding it.
@usableFromInline
package struct Locked<State>: @unchecked Sendable {
    @usableFromInline
    let buffer: LockedBuffer<State>

    /// A lock around `state`.
    @usableFromInline
    package static func make(_ state: State) -> Locked<State> {
        Locked(buffer: LockedBuffer.make(state))
    }

    @usableFromInline
    init(buffer: LockedBuffer<State>) {
        self.buffer = buffer
    }

    /// Runs `body` on the value while holding the lock.
    @inlinable
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        // The value is reached only once the mutex is held (a lock around no value: see below).
        try buffer.withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try buffer.withUnsafeMutablePointerToHeader { state in try body(&state.pointee) }
        }
    }
}

// MARK: - A lock around no value

extension Locked where State == Void {
    /// Runs `body` while holding the lock, without an `inout` access to the value: ThreadSanitizer
    /// attributes an `inout` access to a zero-sized value to the first word of the buffer, which
    /// `ManagedBuffer` reads (outside the lock) to find the mutex, and reports the two as a race.
    @inlinable
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try buffer.withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body()
        }
    }
}

// MARK: - LockedBuffer

/// The storage of a ``Locked``: the value, then its mutex, in one allocation.
@usableFromInline
final class LockedBuffer<State>: ManagedBuffer<State, pthread_mutex_t> {
    @usableFromInline
    static func make(_ state: State) -> LockedBuffer<State> {
        let buffer = create(minimumCapacity: 1) { _ in state }
        // Safe: `create` called on this class makes an instance of it.
        let locked = unsafeDowncast(buffer, to: LockedBuffer<State>.self)
        locked.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, nil)
            precondition(result == 0, "pthread_mutex_init failed with \(result)")
        }
        return locked
    }

    deinit {
        // The value (the header) is destroyed by `ManagedBuffer`; the element is this class's to end.
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }
}

// MARK: - A lock made on first use

extension LazyReference {
    /// The lock kept here, if one was made.
    func existingLock<State>(of type: State.Type) -> Locked<State>? {
        load(as: LockedBuffer<State>.self).map { Locked(buffer: $0) }
    }

    /// The lock kept here, made around `initial` the first time (of two racing, one wins).
    func lock<State>(makingWith initial: @autoclosure () -> State) -> Locked<State> {
        existingLock(of: State.self) ?? Locked(buffer: storeIfNil(LockedBuffer.make(initial())))
    }
}
