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
    /// The host holds the member strongly, until ``Context/removeMember(_:)``, the member's
    /// ``Context/shutdown()``, or the host's own end. The member then holds its host weakly (it would
    /// otherwise be a cycle that kept both alive): dropping the host releases its owned members, and an
    /// owned member that outlives its host (held elsewhere) has no ``Context/parent`` and keeps the
    /// values it inherited.
    case owned
}
