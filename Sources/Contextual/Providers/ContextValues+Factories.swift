// Registering factories that take runtime arguments (`provideFactory`).

// MARK: - Registering factories

extension ContextValues {
    /// Registers a factory that builds `type` from runtime arguments, resolved as a
    /// ``Factory``<`Arguments`, `Object`>: the environment-style answer to a resolve that takes arguments.
    ///
    /// ```swift
    /// $0.provideFactory(ReportBuilder.self) { (ctx: Context, args: (user: String, days: Int)) in
    ///     try ReportBuilder(user: args.user, days: args.days, database: ctx.require(Database.self))
    /// }
    /// let report = try request.make(ReportBuilder.self, (user: "ada", days: 7))
    /// ```
    ///
    /// Several arguments are one tuple, and the arguments' type, labels included, is part of the
    /// factory's identity: a factory of `(user: String, days: Int)` is made with
    /// `(user: "ada", days: 7)`. Swift does not destructure a tuple in a closure's parameters, so name
    /// it and read its elements (`args.user`). The closure receives the context the factory was resolved from
    /// (as a transient provider's does) and the arguments, and runs once per call. ``Context/validate()``
    /// checks that the factory resolves, not what it builds: it has no arguments to call it with.
    ///
    /// - Parameters:
    ///   - type: The type the factory builds.
    ///   - make: Builds an object from the context and the arguments.
    public mutating func provideFactory<Object: Sendable, Arguments>(
        _ type: Object.Type,
        _ make: @escaping @Sendable (Context, Arguments) throws -> Object
    ) {
        let builder = ProviderBox<Object>(
            entry: type,
            lifetime: .transient,
            factory: .sync { _ in preconditionFailure("Contextual: a factory's builder runs with arguments") },
            role: .factory
        )
        let factoryType = Factory<Arguments, Object>.self
        own.set(
            StorageID(object: factoryType),
            to: ProviderBox(
                entry: factoryType,
                lifetime: .transient,
                factory: .sync { context in Factory(context: context, builder: builder, make: make) },
                linked: builder
            )
        )
    }
}
