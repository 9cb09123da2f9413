// Resolving every provider added for a type (`resolveAll`, `requireAll`).

// MARK: - Resolving all providers

extension Context {
    /// The objects of every provider added for `type` with ``ContextValues/addProvider(_:lifetime:_:)``
    /// in this context's chain, root first and in the order they were added; stops the process when one
    /// fails.
    ///
    /// ```swift
    /// for check in request.resolveAll(HealthCheck.self) { print(check.name) }
    /// ```
    ///
    /// - Parameter type: The type the providers were added for.
    /// - Returns: One object per provider (each built now if its lifetime asks for it); empty when none
    ///   was added.
    public func resolveAll<T: Sendable>(_ type: T.Type) -> [T] {
        do {
            return try requireAll(type)
        } catch {
            failHard(error)
        }
    }

    /// The objects of every provider added for `type` in this context's chain, root first and in the
    /// order they were added.
    ///
    /// ```swift
    /// let checks = try app.requireAll(HealthCheck.self)
    /// ```
    ///
    /// - Parameter type: The type the providers were added for.
    /// - Returns: One object per provider; empty when none was added.
    /// - Throws: ``ContextError``: the first failure of a provider, as ``require(_:)-(T.Type)`` throws it.
    public func requireAll<T: Sendable>(_ type: T.Type) throws(ContextError) -> [T] {
        let id = StorageID(object: ProviderList<T>.self)
        let list = withValues { $0.own.box(id) ?? $0.inherited.box(id) } as? ProviderList<T>
        guard let list else { return [] }
        tree.noteReads(of: list.anyProviders)  // for a boot report's edges; one load and branch unless one runs
        let providers = list.providers
        var objects: [T] = []
        objects.reserveCapacity(providers.count)
        for provider in providers { objects.append(try provider.resolve(from: self)) }
        return objects
    }
}
