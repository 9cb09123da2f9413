// `LockedState`: state shared between threads behind a lock that ThreadSanitizer sees.

import Foundation

// MARK: - LockedState

/// A value shared between threads, read and written behind a lock.
///
/// A `pthread` mutex (through `NSLock`) rather than the toolchain's `Mutex`: on Linux, `Mutex` is built on
/// futexes in an uninstrumented library, so ThreadSanitizer, which CI runs the tests under, sees neither
/// its locking nor the order it gives, and reports every access to the state it guards as a race.
///
/// ```swift
/// let seen = LockedState<[String: Int]>([:])
/// seen.withLock { $0["a", default: 0] += 1 }
/// ```
///
/// `@unchecked Sendable`: the value is only reached inside ``withLock(_:)``, behind the lock this
/// instance owns.
final class LockedState<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Makes the state, holding `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value, with the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
