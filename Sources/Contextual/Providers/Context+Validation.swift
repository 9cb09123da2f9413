// Validation: `validate()` and `prepare()` resolve every provider a context sees and report every problem.

// MARK: - Validation

extension Context {
    /// Resolves every provider this context sees, so that a server fails at boot rather than on its first
    /// request, and reports every problem at once: missing objects, cycles, captive dependencies and
    /// factories that throw.
    ///
    /// ```swift
    /// let app = Context(name: "app") { … }
    /// try app.validate()  // throws one error listing every problem
    /// ```
    ///
    /// Singletons are built (and kept: validation warms them up); scoped and transient objects are built
    /// in a throwaway scope below this context. This synchronous form skips providers with async factories
    /// (a factory that needs one not yet built reports ``ContextError/Code/asyncProvider``), and it
    /// cannot await a shutdown: the objects it built in the throwaway scope that adopt
    /// ``ScopeShutdown`` are handed to this context, whose ``shutdown()`` shuts them down with its own.
    /// ``prepare()`` builds async providers too, and shuts its throwaway scope down itself.
    ///
    /// - Throws: ``ContextError/Code/validationFailed``, with each problem in
    ///   ``ContextError/underlyingErrors``.
    ///
    /// - Complexity: O(*p*) factory runs for the *p* providers this context sees, plus what those factories
    ///   cost; singletons built here are kept, so a second validation builds nothing new.
    public func validate() throws(ContextError) {
        let providers = visibleProviders()
        let probe = scope(name: "validation of \(displayName)")
        var problems: [ContextError] = []
        for provider in providers where !provider.isAsync {
            do throws(ContextError) {
                try provider.validate(from: probe)
            } catch {
                problems.append(error)
            }
        }
        // Nothing built for the check is left without a shutdown: this context takes it over.
        scopeStore.adopt(probe.scopeStore)
        try report(problems, checked: providers.count)
    }

    /// Resolves every provider this context sees, awaiting async factories, then shuts the throwaway
    /// scope of scoped and transient objects down; reports every problem at once.
    ///
    /// ```swift
    /// try await app.prepare()  // at boot: every provider checked, async ones built
    /// ```
    ///
    /// It is ``validate()`` for code that can await: what a server or a tool calls at boot. Its name is
    /// not `validate` because Swift does not pick an async overload under `await` in top-level code (see
    /// ``prepare(_:)``).
    ///
    /// Providers are built in dependency order: a factory that needs an async provider not built yet
    /// (``ContextError/Code/asyncProvider``) is tried again once others were built, until every provider
    /// is built or no more progress is made; whatever their names, an async singleton is built before
    /// the synchronous factories that require it.
    ///
    /// - Throws: ``ContextError/Code/validationFailed``, with each problem in
    ///   ``ContextError/underlyingErrors``.
    ///
    /// - Complexity: as ``validate()``, plus shutting the throwaway scope down.
    nonisolated(nonsending)
        public func prepare() async throws(ContextError)
    {
        let providers = visibleProviders()
        let probe = scope(name: "validation of \(displayName)")
        var problems: [ContextError] = []
        var pending = providers
        while !pending.isEmpty {
            var waiting: [(provider: any AnyProviderBox, error: ContextError)] = []
            for provider in pending {
                do throws(ContextError) {
                    try await provider.validateAsync(from: probe)
                } catch {
                    // Needs an async provider not built yet: tried again after the others.
                    if error.code == .asyncProvider {
                        waiting.append((provider, error))
                    } else {
                        problems.append(error)
                    }
                }
            }
            if waiting.count == pending.count {
                // A provider waiting on an async one whose own build failed (it threw, or it needed what
                // is missing, or it is in a cycle) adds nothing to that failure, which names the cause: it
                // is reported once. The failed provider is the problem's first frame, or what it requested.
                let failed = Set(problems.flatMap { [$0.resolutionPath.first, $0.requestedType].compactMap { $0 } })
                problems += waiting.map(\.error).filter { !failed.contains($0.requestedType ?? "") }
                break
            }
            pending = waiting.map(\.provider)
        }
        do throws(ContextError) {
            try await probe.shutdown()
        } catch {
            problems.append(error)
        }
        try report(problems, checked: providers.count)
    }

    // MARK: - Internals

    /// The providers this context sees (the nearest entry of each identity, and every provider added
    /// with ``ContextValues/addProvider(_:lifetime:_:)``), in a stable order.
    func visibleProviders() -> [any AnyProviderBox] {
        let entries = withValues { FrozenTable.merging($0.inherited, overriddenBy: $0.own).entries }
        let providers = entries.flatMap { entry -> [any AnyProviderBox] in
            if let provider = entry.box as? any AnyProviderBox { return [provider] }
            return (entry.box as? any AnyProviderList)?.anyProviders ?? []
        }
        // Sorted stably: the providers added for one type share a label and keep their order. Each label
        // is made once (a type's name, copied from the runtime's cache), not at each of the n log n comparisons.
        return providers.enumerated().map { (label: $0.element.label, offset: $0.offset, provider: $0.element) }
            .sorted { ($0.label, $0.offset) < ($1.label, $1.offset) }
            .map(\.provider)
    }

    /// Throws the problems found, one per cause: a missing object that several factories need, or a
    /// cycle met from each of its members, is listed once (the first time it was met).
    private func report(_ problems: [ContextError], checked: Int) throws(ContextError) {
        var seen = Set<String>()
        var distinct: [ContextError] = []
        for problem in problems {
            let cause =
                switch problem.code {
                case .cycle: "cycle of " + Set(problem.resolutionPath).sorted().joined(separator: ", ")
                case .missingObject: "missing " + (problem.requestedType ?? "")
                default: problem.message
                }
            if seen.insert(cause).inserted { distinct.append(problem) }
        }
        if !distinct.isEmpty { throw ContextError.validationFailed(distinct, in: self, checked: checked) }
    }
}
