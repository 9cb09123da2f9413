// Members: registering children with their host, listing them, and setting container values.

import Synchronization

// MARK: - Members

extension Context {
    /// Makes a child context and registers it as a member of this one, its host: the host lists it in
    /// ``members``, reads its container values and reduces its preferences.
    ///
    /// ```swift
    /// let host = Context(name: "host")
    /// let billing = host.member(name: "billing") { $0.containerValues.displayName = "Billing" }
    /// host.members.map(\.containerValues.displayName)  // ["Billing"]
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for diagnostics.
    ///   - ownership: `.weak` (the default): the host lists the member while something else holds it.
    ///     `.owned`: the host keeps it alive until ``removeMember(_:)`` or its ``shutdown()``.
    ///   - configure: Sets the member's overrides, container values and preferences.
    /// - Returns: The new member, a child of this context.
    public func member(
        name: String? = nil,
        ownership: MemberOwnership = .weak,
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows -> Context {
        let member = try makeChild(name: name, isScope: false, configure)
        register(member, ownership: ownership)
        return member
    }

    /// Makes a child context that sets nothing and registers it as a member of this one; set its
    /// container values and preferences later, e.g. with ``setContainerValue(_:_:)``.
    ///
    /// ```swift
    /// let billing = host.member(name: "billing")
    /// billing.setContainerValue(\.displayName, "Billing")
    /// ```
    public func member(name: String? = nil, ownership: MemberOwnership = .weak) -> Context {
        member(name: name, ownership: ownership) { _ in }
    }

    /// Registers an existing child as a member of this context, e.g. a scope that should be listed while
    /// it runs.
    ///
    /// ```swift
    /// let request = app.scope(name: "request 7")
    /// try app.addMember(request)  // listed in app.members until it ends
    /// ```
    ///
    /// - Throws: ``ContextError`` with code `.notADirectChild` when `child`'s parent is not this context
    ///   (a host reads its direct children only), `.alreadyAMember` when it is registered already, and
    ///   `.scopeEnded` when it has ended.
    public func addMember(_ child: Context, ownership: MemberOwnership = .weak) throws(ContextError) {
        guard child.parent === self else { throw ContextError.notADirectChild(child, host: self) }
        guard !child.isEnded else { throw ContextError.endedMember(child, host: self) }
        guard register(child, ownership: ownership) else { throw ContextError.alreadyAMember(child, host: self) }
    }

    /// Unregisters `member`: it is no longer listed, and an owned member is no longer kept alive.
    ///
    /// ```swift
    /// host.removeMember(billing)  // true
    /// host.removeMember(billing)  // false: not a member any more
    /// ```
    ///
    /// - Returns: Whether `member` was a member of this context.
    @discardableResult
    public func removeMember(_ member: Context) -> Bool {
        guard member.parent === self else { return false }
        member.membershipIfMade?.isMember.store(false, ordering: .releasing)
        return memberLeft(ObjectIdentifier(member))
    }

    /// This context's members, in registration order: those alive and not ended.
    ///
    /// ```swift
    /// for member in host.members {
    ///     print(member.name ?? "?", member.containerValues.displayName)
    /// }
    /// ```
    public var members: [ContextMember] {
        guard let membership = membershipIfMade else { return [] }
        return membership.live.map { ContextMember(context: $0.context, ownership: $0.ownership) }
    }

    /// Calls `body` with each member, in registration order, like SwiftUI's `ForEach(subviews:)`.
    ///
    /// ```swift
    /// host.forEachMember { member in print(member.containerValues.displayName) }
    /// ```
    public func forEachMember(_ body: (ContextMember) throws -> Void) rethrows {
        for member in members { try body(member) }
    }

    /// Sets a container value of this context, for its host to read; like SwiftUI's
    /// `containerValue(_:_:)`, but on this context itself (a context is an object, not a view value).
    ///
    /// ```swift
    /// billing.setContainerValue(\.displayName, "Billing")
    /// ```
    ///
    /// It is an ``update(_:)`` of this context, which it changes in place (it derives nothing): the
    /// host's observers of what depends on it are notified.
    ///
    /// - Parameters:
    ///   - keyPath: The container value to set, as a property of ``ContainerValues``.
    ///   - value: The new value.
    public func setContainerValue<Value>(_ keyPath: WritableKeyPath<ContainerValues, Value>, _ value: Value) {
        update { $0.containerValues[keyPath: keyPath] = value }
    }

    /// Whether this context is registered as a member of its parent.
    ///
    /// ```swift
    /// host.member(name: "billing").isMember  // true
    /// host.child().isMember            // false
    /// ```
    public var isMember: Bool {
        membershipIfMade?.isMember.load(ordering: .acquiring) ?? false
    }

    // MARK: - Internals

    var membership: Membership {
        if let membership = membershipStorage.load(as: Membership.self) { return membership }
        return membershipStorage.storeIfNil(Membership())
    }

    var membershipIfMade: Membership? { membershipStorage.load(as: Membership.self) }

    /// Whether this context is a member or a host (its membership was made): one load, no reference.
    @inlinable
    var isMemberOrHost: Bool { membershipStorage.bits.load(ordering: .acquiring) != 0 }

    /// Registers `member`, a child of this context; false when it was registered already.
    @discardableResult
    func register(_ member: Context, ownership: MemberOwnership) -> Bool {
        guard membership.add(member, ownership: ownership) else { return false }
        member.membership.isMember.store(true, ordering: .releasing)
        // The host now holds an owned member: the member's strong reference back would be a cycle.
        if ownership == .owned, member.membership.holdHostWeakly(self) {
            // The member's chain can now break while the registrars above it live: they keep a weak
            // reference for it to reach them (see `RegistrarLink.registrarBeyondBrokenChain`).
            var node: Context? = self
            while let context = node {
                context.registrarLink?.keepWeakReference(to: context)
                node = context.parent
            }
            // Released once no read that found it strong can still be taking it (see `parentInsideRead`).
            tree.readers.retire(ReferenceWord.takeRetained(member.parentBits, as: Context.self))
        }
        membershipChanged()
        // A member that ended while it was added is not kept.
        if member.isEnded { removeMember(member) }
        return true
    }

    /// Unregisters the member with identity `id` (which may be deinitializing) and announces it.
    @discardableResult
    func memberLeft(_ id: ObjectIdentifier) -> Bool {
        guard let membership = membershipIfMade else { return false }
        let (removed, owned) = membership.remove(id)
        guard removed else { return false }
        membershipChanged()
        withExtendedLifetime(owned) {}  // released here, outside the membership lock
        return true
    }

    /// Called by a member as it ends (shut down or deinitialized).
    func leaveHost() {
        guard let membership = membershipIfMade, membership.isMember.exchange(false, ordering: .acquiringAndReleasing)
        else { return }
        parent?.memberLeft(ObjectIdentifier(self))
    }

    private func membershipChanged() {
        tree.membershipVersion.wrappingAdd(1, ordering: .sequentiallyConsistent)
        tree.observersDidChange(CollectionOfOne(Membership.source))
    }
}
