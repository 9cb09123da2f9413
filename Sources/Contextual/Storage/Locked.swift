// `Locked`: a value behind the toolchain's mutex, which ThreadSanitizer is told about.
// Architecture: ARCHITECTURE.md, "Primitives".

import Synchronization

// MARK: - Locked

/// A value behind a mutex, reachable only inside ``withLock(_:)``.
///
/// The mutex is the toolchain's (`_MutexHandle`, what `Synchronization.Mutex` is made of): on Linux,
/// uncontended, taking and giving it up are one inlined atomic compare-and-exchange each, where a pthread
/// mutex costs two calls into the C library (an observed read, one lock section, took 80 instructions
/// with it against 34 now). `Mutex` itself cannot be used: its `withLock` requires a `sending` result, which a generic
/// value behind the lock cannot be. A contended lock waits and hands over where ThreadSanitizer does not
/// see it, so under ThreadSanitizer each lock section tells it the order the mutex makes
/// (``ThreadSanitizerAnnotations``): `swift test --sanitize=thread` stays a real check of data races.
/// (It does not make ThreadSanitizer check the order in which these locks are taken.)
///
/// Not re-entrant: a lock section that takes the same lock again traps. On Linux the mutex knows its
/// owner by the thread's ID, which the toolchain caches per thread; a child process made by `fork` that
/// goes on running threads is not supported.
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
        try buffer.withMutexHeld {
            try buffer.withUnsafeMutablePointerToHeader { state in try body(&state.pointee) }
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
        try buffer.withMutexHeld(body)
    }
}

// MARK: - LockedBuffer

/// The storage of a ``Locked``: the value, then its mutex, in one allocation.
@usableFromInline
final class LockedBuffer<State>: ManagedBuffer<State, LockWord> {
    @usableFromInline
    static func make(_ state: State) -> LockedBuffer<State> {
        let buffer = create(minimumCapacity: 1) { _ in state }
        // Safe: `create` called on this class makes an instance of it.
        let locked = unsafeDowncast(buffer, to: LockedBuffer<State>.self)
        locked.withUnsafeMutablePointerToElements { word in
            word.initialize(to: LockWord(isAnnotated: threadSanitizerAnnotations != nil))
        }
        return locked
    }

    /// Runs `body` holding the mutex, with ThreadSanitizer told (when the process runs under it) that
    /// this thread acquires what the last holder released and releases what it did (see
    /// ``ThreadSanitizerAnnotations``).
    @inlinable
    func withMutexHeld<Result>(_ body: () throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointerToElements { word in
            word.pointee.mutex.unsafeLock()
            if word.pointee.isAnnotated { threadSanitizerAnnotations?.acquire(word) }
            defer {
                if word.pointee.isAnnotated { threadSanitizerAnnotations?.release(word) }
                word.pointee.mutex.unsafeUnlock()
            }
            return try body()
        }
    }

    deinit {
        // The value (the header) is destroyed by `ManagedBuffer`; the element is this class's to end.
        _ = withUnsafeMutablePointerToElements { word in word.deinitialize(count: 1) }
    }
}

// MARK: - LockWord

/// A ``LockedBuffer``'s mutex, and whether its lock sections are annotated for ThreadSanitizer: known
/// when the lock is made, kept beside the mutex so that a lock section reads it with the lock word
/// instead of reaching a global.
@usableFromInline
struct LockWord: ~Copyable {
    @usableFromInline
    let mutex = _MutexHandle()
    /// Whether the process runs under ThreadSanitizer (``threadSanitizerAnnotations`` is not nil).
    @usableFromInline
    let isAnnotated: Bool

    init(isAnnotated: Bool) {
        self.isAnnotated = isAnnotated
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
