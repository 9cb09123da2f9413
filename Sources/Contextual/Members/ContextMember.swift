// `ContextMember`: a host's view of one of its direct members and its container values.

// MARK: - ContextMember

/// A member of a host, as the host sees it: the member context and what it declares about itself.
///
/// ```swift
/// host.forEachMember { member in
///     print(member.name ?? "?", member.containerValues.displayName)
/// }
/// ```
///
/// Only a host hands these out (``Context/members``, ``Context/forEachMember(_:)``), and only for its
/// direct members: container values are read from a direct child or not at all.
public struct ContextMember: Sendable {
    /// The member context. Holding this keeps it alive.
    ///
    /// ```swift
    /// let billing = host.members[0].context
    /// ```
    public let context: Context

    /// Whether the host keeps the member alive.
    ///
    /// ```swift
    /// host.members[0].ownership  // .weak
    /// ```
    public let ownership: MemberOwnership

    /// The member's name.
    ///
    /// ```swift
    /// host.members.map(\.name)  // ["billing", "auth"]
    /// ```
    public var name: String? { context.name }

    /// What the member declares about itself, as it is now.
    ///
    /// ```swift
    /// host.members.map(\.containerValues.displayName)  // ["Billing", "Sign-in"]
    /// ```
    public var containerValues: ContainerValues {
        ContainerValues(table: context.snapshot().values.own)
    }
}
