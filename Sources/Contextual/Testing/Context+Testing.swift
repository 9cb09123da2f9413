// Test contexts: roots whose unset keys read their test values, computed afresh for each test context.

// MARK: - Test contexts

extension Context {
    /// Makes a root context for one test: its unset keys (and its descendants') read the keys'
    /// ``ContextKey/testValue``s, computed once for this context's tree, never shared with another test
    /// context nor with production, which keeps its once-per-process defaults.
    ///
    /// ```swift
    /// let test = Context.testing(name: "checkout") { $0.provide(FakeDatabase(), as: (any Database).self) }
    /// test.run { try CheckoutService().checkout() }
    /// ```
    ///
    /// ContextualTesting's `.context { … }` trait and `withTestContext { … }` make one for each test and
    /// record unimplemented reads as test issues; see <doc:Testing>.
    ///
    /// - Parameters:
    ///   - name: A name for diagnostics and reports, such as the test's name.
    ///   - onUnimplementedRead: Called, on the reading thread, at each read of an unset key whose test
    ///     value is unimplemented (see ``ContextKey/unimplemented(placeholder:)``). By default it prints.
    ///   - configure: Sets the context's values; reads inside it see the keys' test values.
    /// - Returns: A new root, with ``isTesting`` true.
    public static func testing(
        name: String? = "test",
        onUnimplementedRead: @escaping @Sendable (UnimplementedRead) -> Void = UnimplementedRead.print,
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows -> Context {
        let environment = TestEnvironment(name: name, onUnimplementedRead: onUnimplementedRead)
        environment.isConfiguring.store(true, ordering: .relaxed)
        defer { environment.isConfiguring.store(false, ordering: .relaxed) }
        return try Context(name: name) { values in
            values.setTestEnvironment(environment)
            try configure(&values)
        }
    }

    /// Makes an empty root context for one test: every key reads its ``ContextKey/testValue``, computed
    /// once for this context's tree; see ``testing(name:onUnimplementedRead:_:)``.
    ///
    /// ```swift
    /// let test = Context.testing(name: "checkout")
    /// test[\.greeting]  // GreetingKey.testValue
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for diagnostics and reports, such as the test's name.
    ///   - onUnimplementedRead: Called, on the reading thread, at each read of an unset key whose test
    ///     value is unimplemented. By default it prints.
    /// - Returns: A new root, with ``isTesting`` true.
    public static func testing(
        name: String? = "test",
        onUnimplementedRead: @escaping @Sendable (UnimplementedRead) -> Void = UnimplementedRead.print
    ) -> Context {
        testing(name: name, onUnimplementedRead: onUnimplementedRead) { _ in }
    }

    /// Whether this context was made by ``testing(name:onUnimplementedRead:_:)`` or derives from one.
    ///
    /// ```swift
    /// Context.testing().child().isTesting  // true
    /// Context.root.isTesting               // false
    /// ```
    public var isTesting: Bool {
        withValues { $0.isTesting && $0.testEnvironment?.readsLiveValues != true }
    }

    /// Makes a root context that reads each unset key's ``ContextKey/defaultValue``, also in a test
    /// process, where other contexts read test values: for a test that wants the live values on purpose
    /// (an integration test against a real service).
    ///
    /// ```swift
    /// @Test func sendsARealEmail() async throws {
    ///     try await Context.live(name: "integration").run { try await Mailer().send(.welcome) }
    /// }
    /// ```
    ///
    /// Outside a test process it is a root like ``init(name:_:)``'s.
    ///
    /// - Parameters:
    ///   - name: A name for diagnostics.
    ///   - configure: Sets the context's values; reads inside it see the keys' defaults.
    /// - Returns: A new root, with ``isTesting`` false.
    public static func live(
        name: String? = "live",
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows -> Context {
        let environment = TestEnvironment(name: name, readsLiveValues: true, onUnimplementedRead: { _ in })
        return try Context(name: name) { values in
            values.setTestEnvironment(environment)
            try configure(&values)
        }
    }

    /// Makes an empty root context that reads each unset key's ``ContextKey/defaultValue``, also in a
    /// test process; see ``live(name:_:)``.
    ///
    /// ```swift
    /// let integration = Context.live(name: "integration")
    /// integration[\.clock] is ContinuousClock  // true, inside `swift test` too
    /// ```
    ///
    /// - Parameter name: A name for diagnostics.
    /// - Returns: A new root, with ``isTesting`` false.
    public static func live(name: String? = "live") -> Context {
        live(name: name) { _ in }
    }
}
