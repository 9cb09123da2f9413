// `Factory`: a provided callable that builds an object from runtime arguments and its context.

// MARK: - Factory

/// A factory that builds `Object` from arguments known only at run time, resolving everything else from
/// the context it was resolved from. Register it with ``ContextValues/provideFactory(_:_:)``; resolve it
/// as any object, or build at once with ``Context/make(_:_:)``.
///
/// ```swift
/// let app = Context(name: "app") {
///     $0.provide(Database.self, lifetime: .singleton) { _ in Database() }
///     $0.provideFactory(ReportBuilder.self) { (ctx: Context, args: (user: String, days: Int)) in
///         try ReportBuilder(user: args.user, days: args.days, database: ctx.require(Database.self))
///     }
/// }
/// let makeReport = try app.require(Factory<(user: String, days: Int), ReportBuilder>.self)
/// let report = try makeReport((user: "ada", days: 7))
/// ```
///
/// Each call builds a new object, as a transient provider does: from the context the factory was
/// resolved from, with the same cycle detection and error messages. An object that adopts
/// ``ScopeShutdown`` is shut down with the scope that a transient object built there would belong to.
public struct Factory<Arguments, Object: Sendable>: Sendable {
    let context: Context
    let builder: ProviderBox<Object>
    let make: @Sendable (Context, Arguments) throws -> Object

    /// Builds an object from `arguments`, resolving the rest from the context the factory was resolved
    /// from.
    ///
    /// ```swift
    /// let report = try makeReport((user: "ada", days: 7))
    /// ```
    ///
    /// - Parameter arguments: What the object needs besides what the context holds.
    /// - Returns: A new object.
    /// - Throws: ``ContextError``, as resolving a transient provider does: ``ContextError/Code/factoryFailed``
    ///   when the closure throws, ``ContextError/Code/cycle`` when it resolves what is being built.
    public func callAsFunction(_ arguments: Arguments) throws(ContextError) -> Object {
        try builder.build(for: context) { context in try make(context, arguments) }
    }
}

// MARK: - FactoryType

/// What a ``Factory`` type builds and from what, asked of a provider's type without knowing its
/// generic arguments: for the message of a `make` whose arguments no factory takes.
protocol FactoryType {
    static var objectType: Any.Type { get }
    static var argumentsType: Any.Type { get }
}

extension Factory: FactoryType {
    static var objectType: Any.Type { Object.self }
    static var argumentsType: Any.Type { Arguments.self }
}
