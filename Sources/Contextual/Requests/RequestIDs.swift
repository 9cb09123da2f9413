// The IDs of requests that bring none: a prefix chosen at random per process, a dash, a counter.
// Architecture: ARCHITECTURE.md, "Request scopes".

import Synchronization

// MARK: - Request IDs

/// Makes request IDs unique within a process and unlikely to repeat across processes.
///
/// ```swift
/// RequestIDs.shared.next()  // "k3x9f2-1"
/// ```
final class RequestIDs: Sendable {
    /// The process's IDs, used by ``RequestScope``.
    static let shared = RequestIDs()

    /// 32 random bits in base 36, shared by every ID this maker gives.
    let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    /// How many IDs were given.
    private let counter = Atomic<Int>(0)

    /// A new ID.
    func next() -> String {
        // Relaxed: each ID needs only a number nobody else got, which any ordering of the add gives.
        prefix + "-" + String(counter.add(1, ordering: .relaxed).newValue)
    }
}
