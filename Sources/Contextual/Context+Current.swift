// The current context: the task-local context `@Injected` binds to, the process-wide root, and `run`.

// MARK: - The current context

extension Context {
    /// The process-wide root: what ``current`` is outside any ``run(_:)``. It sets nothing, so every key
    /// reads as its default.
    ///
    /// ```swift
    /// Context.root[\.verbosity]  // the key's default
    /// ```
    public static let root = Context(name: "root")

    /// The context of the running task: set by ``run(_:)`` for the duration of its closure, inherited by
    /// child tasks and `async let`, and ``root`` elsewhere.
    ///
    /// ```swift
    /// func handle() {
    ///     let id = Context.current[\.requestID]
    /// }
    /// ```
    @TaskLocal
    public static var current: Context = .root

    /// Runs `body` with this context as ``current``.
    ///
    /// Objects made inside, such as services holding ``Injected`` properties, bind to this context for
    /// their whole life.
    ///
    /// ```swift
    /// let service = request.run { UserService() }
    /// ```
    ///
    /// - Parameter body: The work to run with this context as ``current``.
    /// - Returns: What `body` returned.
    @inlinable
    @discardableResult
    public func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        try Context.$current.withValue(self, operation: body)
    }

    /// Runs the asynchronous `body` with this context as ``current``; child tasks and `async let` inside
    /// inherit it.
    ///
    /// ```swift
    /// try await request.run { try await handler.handle() }
    /// ```
    @inlinable
    @discardableResult
    public func run<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await Context.$current.withValue(self, operation: body)
    }
}
