// Preferences and contributions: setting them, reading them reduced over a subtree, observing them.

// MARK: - Preferences

extension Context {
    /// The value of a preference reduced over this context's subtree: this context's own value first,
    /// then each member's subtree in registration order, depth first (see ``PreferenceKey``).
    ///
    /// ```swift
    /// host.member(name: "billing") { $0.preferences.routes = ["/invoices"] }
    /// host.member(name: "auth") { $0.preferences.routes = ["/login"] }
    /// host.preference(\.routes)  // ["/invoices", "/login"]
    /// ```
    ///
    /// Only members take part: a child that is not registered as a member contributes nothing. Inside
    /// ``ObservationRegistry/withTracking(_:onChange:)`` the read is tracked like a context value.
    ///
    /// - Parameter keyPath: The preference to read, as a property of ``PreferenceValues``.
    /// - Returns: The reduced value.
    /// - Complexity: O(*m*) for the *m* contexts of this context's subtree of members: a reduction walks the
    ///   subtree, taking each host's member list under a short lock. Not a hot-path read.
    public func preference<Value>(_ keyPath: KeyPath<PreferenceValues, Value>) -> Value {
        PreferenceValues(reducingOver: self)[keyPath: keyPath]
    }

    /// Sets this context's own value of a preference, for its hosts to reduce.
    ///
    /// ```swift
    /// billing.setPreference(\.routes, ["/invoices"])
    /// ```
    ///
    /// It is an ``update(_:)`` of this context, which it changes in place (it derives nothing):
    /// observers of the preference above are notified.
    ///
    /// - Parameters:
    ///   - keyPath: The preference to set, as a property of ``PreferenceValues``.
    ///   - value: This context's own value, reduced with its members' by its hosts.
    public func setPreference<Value>(_ keyPath: WritableKeyPath<PreferenceValues, Value>, _ value: Value) {
        update { $0.preferences[keyPath: keyPath] = value }
    }

    /// Adds elements to this context's own contribution to an array preference
    /// (``ArrayContributionKey``).
    ///
    /// ```swift
    /// billing.contribute(\.routes, "/invoices", "/refunds")
    /// ```
    public func contribute<Element>(
        _ keyPath: WritableKeyPath<PreferenceValues, [Element]>,
        _ elements: Element...
    ) {
        update { $0.preferences[keyPath: keyPath].append(contentsOf: elements) }
    }

    /// Adds an element to this context's own contribution to a set preference (``SetContributionKey``).
    ///
    /// ```swift
    /// billing.contribute(\.oauthScopes, "invoices:read")
    /// ```
    public func contribute<Element>(
        _ keyPath: WritableKeyPath<PreferenceValues, Set<Element>>,
        _ element: Element
    ) {
        update { $0.preferences[keyPath: keyPath].insert(element) }
    }

    /// Adds a keyed contribution to a dictionary preference (``DictionaryContributionKey``). A key
    /// contributed twice, here or by another context, is reported by ``contributions(_:)``.
    ///
    /// ```swift
    /// billing.contribute(\.healthChecks, key: "ledger", LedgerCheck())
    /// ```
    public func contribute<Key, Value>(
        _ keyPath: WritableKeyPath<PreferenceValues, Contributions<Key, Value>>,
        key: Key,
        _ value: Value
    ) {
        update { $0.preferences[keyPath: keyPath].add(value, for: key) }
    }

    /// The contributions to a dictionary preference over this context's subtree, as one dictionary.
    ///
    /// ```swift
    /// let checks = try host.contributions(\.healthChecks)  // ["ledger": …, "sessions": …]
    /// ```
    ///
    /// - Throws: ``ContextError`` with code ``ContextError/Code/duplicateContribution`` when two
    ///   contributions share a key, naming both contributors.
    public func contributions<Key, Value>(
        _ keyPath: KeyPath<PreferenceValues, Contributions<Key, Value>>
    ) throws(ContextError) -> [Key: Value] {
        try preference(keyPath).dictionary()
    }

    // MARK: - Observing

    /// Calls `handler` with the reduced preference after every change of it: a member added, removed
    /// or ended anywhere in the subtree, or a context in it changing its contribution.
    ///
    /// ```swift
    /// let token = host.observePreference(\.routes) { routes in router.install(routes) }
    /// host.member(name: "search", ownership: .owned) { $0.preferences.routes = ["/search"] }  // calls it
    /// ```
    ///
    /// The handler runs after the change, synchronously on the changing thread (for a member that ends
    /// by being released, the thread that released it), outside every lock. It is not called when the
    /// subtree changed in a way that leaves every contribution the same object, e.g. a context that
    /// sets nothing being re-registered in the same place. The token holds this context weakly.
    public func observePreference<Value: Sendable>(
        _ keyPath: KeyPath<PreferenceValues, Value> & Sendable,
        _ handler: @escaping @Sendable (Value) -> Void
    ) -> ObservationToken {
        subscribeToValue(of: { [weak self] in self?.preference(keyPath) }, handler: handler).token
    }

    /// The reduced preference now, then after every change, as an `AsyncSequence`; a slow consumer gets
    /// the newest value.
    ///
    /// ```swift
    /// for await routes in host.preferenceChanges(of: \.routes) { router.install(routes) }
    /// ```
    public func preferenceChanges<Value: Sendable>(
        of keyPath: KeyPath<PreferenceValues, Value> & Sendable
    ) -> AsyncStream<Value> {
        streamOfValue(of: { [weak self] in self?.preference(keyPath) })
    }

    // MARK: - Reducing

    /// `key` reduced over this context's subtree; recorded for tracking when a recorder is active.
    func reducePreference<Key: PreferenceKey>(_ key: Key.Type) -> Key.Value {
        let id = StorageID(preference: key)
        // Decided once per read: only dictionary contributions record their contributor.
        let keyName = Key.Value.self is any AttributedContribution.Type ? TypeMetadata.qualifiedName(of: key) : nil
        var value = Key.defaultValue
        forEachInSubtree { context, own in
            guard var next = own.value(id, as: Key.Value.self) else { return }
            if let keyName, let attributed = next as? any AttributedContribution {
                // Safe: `attributed(to:preference:)` returns its own type, which is `Key.Value`.
                next =
                    attributed.attributed(
                        to: context.chainNames.reversed().joined(separator: " → "),
                        preference: keyName
                    )
                    as! Key.Value
            }
            Key.reduce(value: &value) { next }
        }
        if let recorder = ObservationRecorder.active {
            recorder.append(PreferenceAccess(reading: key, from: self))
        }
        return value
    }

    /// Calls `body` with this context and each context in its subtree of members (depth first, in
    /// registration order), with the context's own entries as they are now.
    func forEachInSubtree(_ body: (Context, FrozenTable) -> Void) {
        body(self, snapshot().values.own)
        guard let membership = membershipIfMade else { return }
        for member in membership.live { member.context.forEachInSubtree(body) }
    }
}
