// Scopes: making them, running a body in one, shutting them down.

import Synchronization

// MARK: - Scopes

extension Context {
    /// Derives a child context that is a scope: the objects of ``Lifetime/scoped`` providers resolved in
    /// it or below belong to it, and ``shutdown()`` ends them.
    ///
    /// ```swift
    /// let request = app.scope(name: "request \(id)") { $0.requestID = id }
    /// defer { Task { try await request.shutdown() } }
    /// let transaction = try request.require(Transaction.self)  // one per request
    /// ```
    ///
    /// A plain ``child(name:_:)`` is not a scope, but a scoped object resolved below the context that
    /// registered its provider, with no scope in between, belongs to that context's child on the way:
    /// so `app.child { … }` per request works too, and a context derived from the request (to change its
    /// logger, say) shares the request's object.
    ///
    /// - Parameters:
    ///   - name: A name for diagnostics.
    ///   - configure: Sets the scope's overrides; reads inside it see this context's values.
    /// - Returns: The new scope; end it with ``shutdown()``.
    /// - Complexity: O(1) plus the cost of `configure`, as ``child(name:_:)``.
    public func scope(
        name: String? = nil,
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows -> Context {
        try makeChild(name: name, isScope: true, configure)
    }

    /// Derives a child context that is a scope, with no values of its own.
    ///
    /// ```swift
    /// let job = app.scope(name: "nightly job")
    /// ```
    ///
    /// - Parameter name: A name for diagnostics.
    /// - Returns: The new scope; end it with ``shutdown()``.
    public func scope(name: String? = nil) -> Context {
        makeChild(name: name, isScope: true) { _ in }
    }

    /// Runs `body` in a new scope, then shuts the scope down, whether `body` returned or threw.
    ///
    /// ```swift
    /// let receipt = try await app.withScope(name: "request 42") { $0.requestID = "42" } body: { request in
    ///     try await request.run { try await CheckoutHandler().handle() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on: the caller's, by default.
    ///   - name: A name for diagnostics.
    ///   - configure: Sets the scope's overrides.
    ///   - body: The work to do in the scope, which is shut down when it returns or throws.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw; else a ``ContextError/Code/shutdownFailed`` error if objects failed to
    ///   shut down. When both failed, the shutdown error, with `body`'s error first in its
    ///   ``ContextError/underlyingErrors``, so that nothing is lost.
    public func withScope<Result>(
        isolation: isolated (any Actor)? = #isolation,
        name: String? = nil,
        _ configure: (inout ContextValues) throws -> Void = { _ in },
        body: (Context) async throws -> Result
    ) async throws -> Result {
        let scope = try self.scope(name: name, configure)
        let result: Result
        do {
            result = try await body(scope)
        } catch {
            do {
                try await scope.shutdown()
            } catch let shutdownError {
                throw ContextError(
                    code: .shutdownFailed,
                    requestedType: nil,
                    searchedContexts: shutdownError.searchedContexts,
                    message: "the scope's body threw \(error), then " + shutdownError.message,
                    underlyingErrors: [error] + shutdownError.underlyingErrors
                )
            }
            throw error
        }
        try await scope.shutdown()
        return result
    }

    // MARK: - Ending

    /// Ends this context as a scope: shuts down the objects it built that adopt ``ScopeShutdown`` (its
    /// scoped objects and the singletons it registered), in reverse order of creation, and builds nothing
    /// more. Calling it again does nothing.
    ///
    /// ```swift
    /// let request = app.scope(name: "request")
    /// // … serve the request …
    /// try await request.shutdown()
    /// ```
    ///
    /// What it shuts down: the scoped objects built for it, the singletons it registered, and, if it was
    /// made as a scope (``scope(name:_:)``), the transient objects built for it (resolved from it or from
    /// a context below it with no scope in between), that adopt ``ScopeShutdown``, in reverse order of
    /// creation. A transient resolved where there is no scope is the caller's (see ``Lifetime/transient``). Builds it owns that are
    /// running when it is called are waited for (up to ``ContextValues/buildWaitLimit``) and shut down
    /// with the rest: the resolvers of those builds get ``ContextError/Code/scopeEnded``, so no object
    /// escapes its scope's shutdown. A build still running at the limit is reported in the thrown error
    /// (``ContextError/Code/buildTimedOut``) and shut down by its builder when it ends: a failure of that
    /// later shutdown goes to ``ContextValues/shutdownFailureHandler``. Cancelling the task stops the wait
    /// the same way.
    ///
    /// Every object is shut down even when one throws. Afterwards this context builds nothing more:
    /// resolving its scoped objects, or an object it would build (from it or from anywhere), fails with
    /// ``ContextError/Code/scopeEnded`` from ``require(_:)-(T.Type)`` and the hard forms, and gives `nil`
    /// from the optional forms. Everything else stays readable by every form alike: its values, the
    /// objects given to it directly, and what its ancestors provide. End a scope's children before the
    /// scope: singletons it registered and built stay readable to them, shut down. A member leaves its
    /// host's ``members`` (and its preferences leave the host's reductions) as it ends.
    ///
    /// It runs on the caller's actor, if any (it is `nonisolated(nonsending)`): ending a request's scope
    /// from an actor, or from ``withScope(isolation:name:_:body:)``, does not hop to the global executor
    /// and back. Each object's own `shutdown()` runs where its isolation says.
    ///
    /// - Throws: ``ContextError/Code/shutdownFailed`` naming each object that threw, with what it threw
    ///   in ``ContextError/underlyingErrors``.
    nonisolated(nonsending) public func shutdown() async throws(ContextError) {
        let store = scopeStore
        guard store.beginEnd() else { return }
        // What is being built for this scope is waited for, so that it is shut down with the rest.
        let stillRunning = store.hasRunningBuilds ? await store.waitForBuilds(atMost: self[\.buildWaitLimit]) : []
        var objects = store.close()
        // Every object it owns, those still being built at the limit included.
        let count = objects.count + stillRunning.count
        leaveHost()
        var failures: [(label: String, error: any Error)] = []
        for label in stillRunning {
            failures.append((label, ContextError.buildStillRunning(label, scope: self)))
        }
        // Last created first, each moved out of the list (a loop over the list would copy each entry).
        while let (builder, object) = objects.popLast() {
            do {
                try await object.shutdown()
            } catch {
                failures.append((builder.label, error))
            }
        }
        if !failures.isEmpty { throw ContextError.shutdownFailed(failures, of: count, in: self) }
    }

    /// Whether ``shutdown()`` was called on this context.
    ///
    /// ```swift
    /// try await request.shutdown()
    /// request.isEnded  // true
    /// ```
    @inlinable
    public var isEnded: Bool {
        scopeEnded.load(ordering: .acquiring)
    }

    // MARK: - Internals

    @usableFromInline
    var scopeStore: ScopeStore {
        let state =
            scopeStoreStorage.existingLock(of: ScopeStore.State.self)
            ?? Locked(buffer: scopeStoreStorage.storeIfNil(ScopeStore.makeBuffer(in: .running)))
        return ScopeStore(state, of: self)
    }

    /// The cell of `provider` in this scope's store (made on first use, with the spare buffer of
    /// `thread`, the running thread's block, if it has one), or nil once the scope ended: what
    /// ``scopeStore`` would give, without making a view of the store (two references).
    @inlinable
    func scopeCell<Value>(for provider: ProviderBox<Value>, thread: ThreadSlot.Block) -> BuildCell<Value>? {
        let existing = scopeStoreStorage.withInstance(as: LockedBuffer<ScopeStore.State>.self) { buffer in
            ScopeStore.cell(for: provider, in: buffer, of: self)
        }
        if let cell = existing { return cell }
        let buffer = scopeStoreStorage.storeIfNil(ScopeStore.makeBuffer(in: thread))
        return ScopeStore.cell(for: provider, in: buffer, of: self)
    }

    /// This context or the ancestor whose registrar link is `link` (the context that registered the
    /// providers bound to it): nil when it is not on this context's chain, or gone. Past an owned member
    /// whose host is gone, the registrar is found through the weak reference its link keeps for that case
    /// (``RegistrarLink/registrarBeyondBrokenChain``).
    ///
    /// - Complexity: as ``withScopeOwnerAndRegistrar(registeredWith:_:)``.
    @usableFromInline
    func ancestor(registeredWith link: RegistrarLink) -> Context? {
        withScopeOwnerAndRegistrar(registeredWith: link) { _, registrar in registrar }
    }

    /// Runs `body` with the registrar whose link is `link` (as ``ancestor(registeredWith:)``) and the
    /// scope that owns a scoped object of its provider resolved from this context (as
    /// ``scopeOwner(registeredOn:)``), found in one walk; nil when the registrar is not on this context's
    /// chain, or gone. Both are lent to `body` without a reference count where this context's chain
    /// holds them (the caller holds this context), which is every time but past an owned member.
    ///
    /// - Complexity: O(*d*) for the *d* contexts up to the registrar, walked without retaining them where
    ///   each holds its parent.
    @inlinable
    func withScopeOwnerAndRegistrar<Result>(
        registeredWith link: RegistrarLink,
        _ body: (_ owner: Context?, _ registrar: Context) -> Result
    ) -> Result? {
        var current = Unmanaged.passUnretained(self)
        var nearestScope: Unmanaged<Context>?
        var candidate: Unmanaged<Context>?
        while true {
            let (found, parentBits, isMemberOrHost, isScope) = current._withUnsafeGuaranteedRef { context in
                (
                    context.registrarLinkStorage.holds(link), context.parentBits, context.isMemberOrHost,
                    context.isScope
                )
            }
            if found {
                let owner = nearestScope ?? candidate
                return current._withUnsafeGuaranteedRef { registrar in
                    guard let owner else { return body(registrar.isScope ? registrar : nil, registrar) }
                    return owner._withUnsafeGuaranteedRef { owner in body(owner, registrar) }
                }
            }
            if nearestScope == nil {
                if isScope { nearestScope = current } else { candidate = current }
            }
            if parentBits == 0 { return nil }
            if isMemberOrHost {
                guard let registrar = current._withUnsafeGuaranteedRef({ $0.registrarPastMembers(link) }) else {
                    return nil
                }
                return body(scopeOwner(registeredOn: registrar), registrar)
            }
            current = ReferenceWord.unmanaged(parentBits, as: Context.self)
        }
    }

    /// The registrar whose link is `link`, looked for from this context's parent on, strongly: this
    /// context is a member or a host, whose link to its host may turn weak at any moment. Past a host
    /// that is gone, it is found through the registrar's weak reference.
    @usableFromInline
    func registrarPastMembers(_ link: RegistrarLink) -> Context? {
        guard let parent else { return link.registrarBeyondBrokenChain }
        return parent.ancestor(registeredWith: link)
    }

    /// The scope that owns a scoped object of a provider registered on `registrar`, resolved from this
    /// context: the nearest scope below `registrar`, else `registrar`'s child on the way, else
    /// `registrar` itself if it is a scope; nil when there is none.
    @usableFromInline
    func scopeOwner(registeredOn registrar: Context) -> Context? {
        var candidate: Context?
        var node: Context? = self
        while let current = node, current !== registrar {
            if current.isScope { return current }
            candidate = current
            node = current.parent
        }
        guard node != nil else { return nil }
        return candidate ?? (registrar.isScope ? registrar : nil)
    }
}
