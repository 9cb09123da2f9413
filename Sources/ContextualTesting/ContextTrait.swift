// `ContextTrait`: the Swift Testing trait that runs each test in a fresh test context of its own.

public import Contextual
public import Testing

// MARK: - ContextTrait

/// A trait that runs each test (each case of a parameterized test) in a fresh test context of its own:
/// `Context.current`, every `@Injected` made during the test and library code reading the current
/// context see the values it sets, and unset keys read their test values, computed for this test alone.
///
/// Make one with `.context { … }` or `.context(\.key, value)`, on a test or a suite (it applies to every
/// test inside, recursively). Several apply in order, outermost (the suite's) first, so an inner one wins:
///
/// ```swift
/// @Suite(.context { $0.provide(FakeDatabase(), as: (any Database).self) })
/// struct CheckoutTests {
///     @Test(.context(\.verbosity, 2))
///     func charges() {
///         #expect(Context.current[\.verbosity] == 2)
///     }
/// }
/// ```
///
/// A read of a key whose test value is unimplemented records an `Issue` naming the key and the line that
/// read it.
public struct ContextTrait: TestTrait, SuiteTrait, TestScoping, Sendable {
    /// Sets the test context's values.
    let configure: @Sendable (inout ContextValues) throws -> Void

    /// The test context the traits of the running test case made, while the test runs: the outermost
    /// trait applies them all, and `withTestContext` derives from it.
    @TaskLocal static var appliedContext: Context?

    /// Whether the traits of the running test case are applied.
    static var isApplied: Bool { appliedContext != nil }

    /// Always true: on a suite, the trait applies to each test inside, each in a context of its own.
    ///
    /// ```swift
    /// ContextTrait.context { _ in }.isRecursive  // true
    /// ```
    public var isRecursive: Bool { true }

    /// Runs `function`, the test, in a new test context set by every context trait of `test` in order.
    ///
    /// ```swift
    /// // Called by Swift Testing for each test case; not called directly.
    /// ```
    ///
    /// - Parameters:
    ///   - test: The test that runs.
    ///   - testCase: The case that runs.
    ///   - function: The test's body.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        if ContextTrait.isApplied {
            // An outer context trait of this test case made the context, with this trait's values.
            try await function()
            return
        }
        let traits = test.traits.compactMap { $0 as? ContextTrait }
        let context = try Context.testing(
            name: test.displayName ?? test.name,
            onUnimplementedRead: UnimplementedReadIssue.record
        ) { values in
            for trait in traits.isEmpty ? [self] : traits { try trait.configure(&values) }
        }
        try await ContextTrait.$appliedContext.withValue(context) {
            try await context.run { try await function() }
        }
    }
}

// MARK: - Making the trait

extension Trait where Self == ContextTrait {
    /// Runs the test (or each test of the suite) in a fresh test context set by `configure`.
    ///
    /// ```swift
    /// @Test(.context { $0.clock = ImmediateClock(); $0.provide(FakeDatabase(), as: (any Database).self) })
    /// func checkout() async throws { … }
    /// ```
    ///
    /// - Parameter configure: Sets the test context's values; it runs once per test case, after the
    ///   configuring closures of the context traits outside it (a suite's), so that its values win.
    /// - Returns: The trait.
    public static func context(_ configure: @escaping @Sendable (inout ContextValues) throws -> Void) -> Self {
        ContextTrait(configure: configure)
    }

    /// Runs the test (or each test of the suite) in a fresh test context where `keyPath` is `value`.
    ///
    /// ```swift
    /// @Test(.context(\.verbosity, 2))
    /// func verbose() { #expect(Context.current[\.verbosity] == 2) }
    /// ```
    ///
    /// `value` is evaluated for each test and each case of a parameterized test, as the closure form's
    /// body is: a stateful value (`.incrementing()` UUIDs, a recording fake, a manual clock) is never
    /// shared between them.
    ///
    /// - Parameters:
    ///   - keyPath: The value to set, as a property of `ContextValues`.
    ///   - value: The value, evaluated once per test case.
    /// - Returns: The trait.
    public static func context<Value: Sendable>(
        _ keyPath: WritableKeyPath<ContextValues, Value> & Sendable,
        _ value: @autoclosure @escaping @Sendable () -> Value
    ) -> Self {
        // Without reading the value it replaces (a provider's object, a key's default).
        ContextTrait { $0.assign(value(), at: keyPath) }
    }
}
