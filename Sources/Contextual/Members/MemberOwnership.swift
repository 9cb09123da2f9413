// `MemberOwnership`: whether a host keeps a member alive.

// MARK: - MemberOwnership

/// Whether a host keeps a member alive.
///
/// ```swift
/// let billing = host.member(name: "billing")                   // listed while someone else holds it
/// host.member(name: "metrics", ownership: .owned) { _ in }     // listed until it is removed or shut down
/// ```
public enum MemberOwnership: Sendable, Hashable {
    /// The host holds the member weakly: once nothing else holds it, it ends and is no longer listed.
    case weak
    /// The host holds the member strongly, until ``Context/removeMember(_:)`` or the member's
    /// ``Context/shutdown()``.
    case owned
}
