// Adding one of several providers of a type (`addProvider`), all resolved together.

// MARK: - Adding providers

extension ContextValues {
    /// Adds a provider of `type` to those that ``Context/resolveAll(_:)`` resolves together, in this
    /// context and every context below it: several modules each add a health check or a middleware, and
    /// the server resolves all of them.
    ///
    /// ```swift
    /// let app = Context(name: "app") {
    ///     $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in DatabaseCheck() }
    ///     $0.addProvider(HealthCheck.self, lifetime: .transient) { _ in DiskCheck() }
    /// }
    /// let checks = try app.requireAll(HealthCheck.self)  // [DatabaseCheck, DiskCheck]
    /// ```
    ///
    /// Providers added this way are not resolved by ``Context/require(_:)-(T.Type)``, and one registered
    /// with ``provide(_:lifetime:_:)-3ybip`` is not among them: the two registrations of a type are
    /// independent. Each provider has a lifetime of its own, as with `provide`, is validated by
    /// ``Context/validate()``, and shuts down what it built with its scope.
    ///
    /// A context added below another inherits its providers: it sees its ancestors' (root first) then
    /// its own, in the order they were added. What an ancestor adds after this context was made (with
    /// ``Context/update(_:)``) is not seen by it once it added providers of its own.
    ///
    /// - Parameters:
    ///   - type: The type the providers are resolved together by (a protocol, say).
    ///   - lifetime: How long what the factory builds lives (see ``Lifetime``).
    ///   - factory: Builds the object from the context given, as for ``provide(_:lifetime:_:)-3ybip``.
    public mutating func addProvider<Object: Sendable>(
        _ type: Object.Type,
        lifetime: Lifetime,
        _ factory: @escaping @Sendable (Context) throws -> Object
    ) {
        let id = StorageID(object: ProviderList<Object>.self)
        let provider = ProviderBox(entry: type, lifetime: lifetime, factory: .sync(factory))
        if let own = own.box(id) as? ProviderList<Object> {
            self.own.set(id, to: own.appending(provider))
        } else {
            self.own.set(id, to: ProviderList(provider, after: inherited.box(id) as? ProviderList<Object>))
        }
    }
}
