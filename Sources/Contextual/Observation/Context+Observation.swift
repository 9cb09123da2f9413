// Observing context values: `observe` and `changes(of:)` deliver the value a context sees after a change.

// MARK: - Observing context values

extension Context {
    /// Calls `handler` with the value at `keyPath` as this context sees it, after every change of it:
    /// an ``update(_:)`` of this context or of an ancestor, or an override added or removed in between.
    /// A change shielded by an override between the change and this context does not call it.
    ///
    /// ```swift
    /// let token = request.observe(\.config) { config in reconnect(to: config.databaseURL) }
    /// app.update { $0.config = reloaded }  // calls the handler with `reloaded`
    /// ```
    ///
    /// The handler runs after the change is stored, synchronously on the updating thread, outside every
    /// lock. The token holds this context weakly: observing never keeps a context alive.
    ///
    /// - Parameters:
    ///   - keyPath: The value to observe, as a property of ``ContextValues``.
    ///   - handler: Called with the value this context sees, after each change of it.
    /// - Returns: A token; cancelling or releasing it ends the observation.
    @inlinable
    public func observe<Value: Sendable>(
        _ keyPath: KeyPath<ContextValues, Value> & Sendable,
        _ handler: @escaping @Sendable (Value) -> Void
    ) -> ObservationToken {
        subscribeToValue(
            of: { [weak self] in self?[keyPath] },
            handler: handler,
            specializedChange: { $0.changedNow() }
        ).token
    }

    /// Calls `handler` with the object provided under `type` as this context sees it (or `nil`), after
    /// every change of which object that is. A property change inside the object does not call it:
    /// observe that property on the object.
    ///
    /// ```swift
    /// let token = request.observe(ConnectionPool.self) { pool in healthCheck.watch(pool) }
    /// ```
    ///
    /// Reading the object never stops the process: what a provider cannot build at the moment (an async
    /// factory not awaited yet, a factory that fails, a scoped object read outside any scope) reads as
    /// `nil`, and the handler is called when a different object or provider is set, not when a provider
    /// finishes a build. Resolve or ``prepare(_:)`` such an object to get it or its error.
    ///
    /// - Parameters:
    ///   - type: The type of the object to observe.
    ///   - handler: Called with the object this context resolves (or `nil`) after a different one is set.
    /// - Returns: A token; cancelling or releasing it ends the observation.
    public func observe<Object: Sendable>(
        _ type: Object.Type,
        _ handler: @escaping @Sendable (Object?) -> Void
    ) -> ObservationToken {
        subscribeToValue(
            of: { [weak self] () -> Object?? in self.map { try? $0.lookupObject(type) } },
            handler: { handler($0) }
        ).token
    }

    /// The value at `keyPath` as this context sees it now, then after every change, as an
    /// `AsyncSequence`; a slow consumer gets the newest value. Ending the consuming task ends the
    /// subscription.
    ///
    /// ```swift
    /// for await config in app.changes(of: \.config) {
    ///     apply(config)
    /// }
    /// ```
    public func changes<Value: Sendable>(of keyPath: KeyPath<ContextValues, Value> & Sendable) -> AsyncStream<Value> {
        streamOfValue(of: { [weak self] in self?[keyPath] })
    }

    // MARK: - Tracked reads

    /// Reads through `body` and records the entries it read, for a subscription.
    @usableFromInline
    func trackedRead<Value>(_ recorder: ObservationRecorder, _ body: (ContextValues) -> Value) -> Value {
        let read = beginRead(recordingIn: recorder)
        let value = body(read.values)
        endRead(read)
        return value
    }

    /// Tells the observers of what `changes` computes (this context's own entries that changed) that
    /// they changed. `changes` runs only when the tree has observers: comparing the values before and
    /// after an update (a dynamic cast per value to find its equality) costs more than the update.
    func notifyObservers(of changes: () -> [UInt]) {
        tree.observersDidChange(computing: changes)
    }
}

// MARK: - ContextAccess

/// A read of some entries of a context, as recorded for tracking.
struct ContextAccess: TrackedAccess {
    weak var context: Context?
    /// The entries read and the boxes seen (nil: not set anywhere in the chain), kept alive.
    let entries: [(id: StorageID, box: (any ContextBox)?)]
    let generation: UInt64

    var version: UInt64 { generation }

    func subscribe(_ subscriber: any Subscriber) -> (token: ObservationToken, changedSinceRead: Bool) {
        guard let context else { return (ObservationToken {}, false) }
        context.isObserved.store(true, ordering: .relaxed)
        let token = context.tree.observers.add(subscriber, to: entries.map(\.id.raw), owner: ObjectIdentifier(context))
        return (token, !isCurrent)
    }

    var identity: [UInt] { entries.map { $0.box.map(address(of:)) ?? 0 } }

    var currentVersion: UInt64 { context?.snapshot().generation ?? generation }
    var isContext: Bool { true }
    var identityMayHoldSameValue: Bool { true }

    func refreshed() -> any TrackedAccess {
        guard let context else { return self }
        let snapshot = context.snapshot()
        return ContextAccess(
            context: context,
            entries: entries.map { (id: $0.id, box: snapshot.values.box($0.id)) },
            generation: snapshot.generation
        )
    }

    /// Whether the context still sees the very boxes that were read.
    var isCurrent: Bool {
        guard let context else { return true }
        let values = context.snapshot().values
        return entries.allSatisfy { values.rawBox($0.id) == ($0.box.map(address(of:)) ?? 0) }
    }
}
