// `Lifetime`: how long what a provider builds lives (singleton, scoped, transient).

// MARK: - Lifetime

/// How long an object built by a provider lives, and who shares it.
///
/// ```swift
/// let app = Context(name: "app") {
///     $0.provide(Database.self, lifetime: .singleton) { ctx in try Database(url: ctx[\.config].databaseURL) }
///     $0.provide(Transaction.self, lifetime: .scoped) { scope in try Transaction(scope.require(Database.self)) }
///     $0.provide(RequestTimer.self, lifetime: .transient) { _ in RequestTimer() }
/// }
/// ```
public enum Lifetime: Sendable, Hashable, CustomStringConvertible {
    /// Built once, on first resolve, and owned by the context that registered the provider; shared by it
    /// and all its descendants. The factory resolves its dependencies from the registering context,
    /// never from the descendant that happened to ask.
    ///
    /// ```swift
    /// $0.provide(ConnectionPool.self, lifetime: .singleton) { app in ConnectionPool(app[\.config]) }
    /// ```
    case singleton

    /// Built once per scope that resolves it, and owned by that scope: e.g. one transaction per request.
    /// The scope is the nearest context made with ``Context/scope(name:_:)`` between the asking context
    /// and the registering one, or else the registering context's child on the way. The factory
    /// resolves from the scope.
    ///
    /// ```swift
    /// $0.provide(Transaction.self, lifetime: .scoped) { request in try Transaction(request.require(Pool.self)) }
    /// ```
    case scoped

    /// Built on every resolve, from the asking context, and owned by the caller: nothing keeps it but
    /// what the caller keeps. One that adopts ``ScopeShutdown`` and is resolved within a scope (the
    /// nearest context made with ``Context/scope(name:_:)`` from the asking context up to the registering
    /// one) is also shut down with that scope; resolved where there is no scope (from an app's root, say),
    /// it is the caller's to shut down, and nothing keeps it.
    ///
    /// ```swift
    /// $0.provide(Stopwatch.self, lifetime: .transient) { _ in Stopwatch() }
    /// ```
    case transient

    /// The lifetime's name.
    ///
    /// ```swift
    /// Lifetime.scoped.description  // "scoped"
    /// ```
    public var description: String {
        switch self {
        case .singleton: "singleton"
        case .scoped: "scoped"
        case .transient: "transient"
        }
    }
}
