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
    /// (a factory that needs one not yet built reports ``ContextError/Code/asyncProvider``) and does not
    /// shut the throwaway scope down; ``prepare()`` does both.
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
    /// Providers are built in the order of their names, so a provider with an async factory is built
    /// (and from then on resolvable synchronously) before the factories after it that need it.
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
        for provider in providers {
            do throws(ContextError) {
                try await provider.validateAsync(from: probe)
            } catch {
                problems.append(error)
            }
        }
        do throws(ContextError) {
            try await probe.shutdown()
        } catch {
            problems.append(error)
        }
        try report(problems, checked: providers.count)
    }

    // MARK: - Internals

    /// The providers this context sees (the nearest entry of each identity), in a stable order.
    func visibleProviders() -> [any AnyProviderBox] {
        let entries = withValues { FrozenTable.merging($0.inherited, overriddenBy: $0.own).entries }
        return entries.compactMap { $0.box as? any AnyProviderBox }.sorted { $0.label < $1.label }
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
