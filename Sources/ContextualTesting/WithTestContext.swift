// `withTestContext`: a fresh test context around a closure, for XCTest and plain code.

public import Contextual
import Testing

// MARK: - withTestContext

/// Runs `operation` in a fresh test context set by `configure`: what the `.context` trait does for a
/// Swift Testing test, for XCTest and plain code. Inside a test that a `.context` trait runs, the context
/// is a child of the test's: it keeps the trait's wiring, and `configure` overrides it.
///
/// ```swift
/// func testCheckout() throws {
///     try withTestContext { $0.provide(FakeDatabase(), as: (any Database).self) } operation: {
///         try CheckoutService().checkout()
///     }
/// }
/// ```
///
/// `Context.current`, every `@Injected` made inside and library code reading the current context see
/// the test context; unset keys read their test values, computed for this context alone. A read of a key
/// whose test value is unimplemented records a Swift Testing `Issue` (inside a Swift Testing test) and
/// prints its description.
///
/// - Parameters:
///   - name: The context's name, for reports; by default the running Swift Testing test's name.
///   - configure: Sets the test context's values.
///   - operation: The work to run with the test context as `Context.current`.
/// - Returns: What `operation` returned.
@discardableResult
public func withTestContext<Result>(
    name: String? = nil,
    _ configure: (inout ContextValues) throws -> Void,
    operation: () throws -> Result
) rethrows -> Result {
    try makeTestContext(name: name, configure).run(operation)
}

/// Runs the asynchronous `operation` in a fresh test context set by `configure`; child tasks inherit it.
///
/// ```swift
/// func testCheckout() async throws {
///     try await withTestContext { $0[\.verbosity] = 2 } operation: {
///         try await CheckoutService().checkout()
///     }
/// }
/// ```
///
/// - Parameters:
///   - name: The context's name, for reports; by default the running Swift Testing test's name.
///   - configure: Sets the test context's values.
///   - isolation: The actor `operation` runs on; the caller's by default.
///   - operation: The work to run with the test context as `Context.current`.
/// - Returns: What `operation` returned.
@discardableResult
public func withTestContext<Result>(
    name: String? = nil,
    _ configure: (inout ContextValues) throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
) async rethrows -> Result {
    try await makeTestContext(name: name, configure).run(operation)
}

/// Runs `operation` in a fresh test context that sets nothing: every key reads its test value.
///
/// ```swift
/// let greeting = withTestContext { Context.current[\.greeting] }  // GreetingKey.testValue
/// ```
///
/// - Parameters:
///   - name: The context's name, for reports; by default the running Swift Testing test's name.
///   - operation: The work to run with the test context as `Context.current`.
/// - Returns: What `operation` returned.
@discardableResult
public func withTestContext<Result>(name: String? = nil, operation: () throws -> Result) rethrows -> Result {
    try makeTestContext(name: name, { _ in }).run(operation)
}

/// Runs the asynchronous `operation` in a fresh test context that sets nothing.
///
/// ```swift
/// let greeting = await withTestContext { await greeter.greet() }
/// ```
///
/// - Parameters:
///   - name: The context's name, for reports; by default the running Swift Testing test's name.
///   - isolation: The actor `operation` runs on; the caller's by default.
///   - operation: The work to run with the test context as `Context.current`.
/// - Returns: What `operation` returned.
@discardableResult
public func withTestContext<Result>(
    name: String? = nil,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
) async rethrows -> Result {
    try await makeTestContext(name: name, { _ in }).run(operation)
}

/// A test context named `name` (or after the running test), reporting unimplemented reads as issues:
/// inside a test that a `.context` trait runs, a child of the trait's context, which keeps its wiring and
/// its test values; elsewhere (XCTest, plain code, a test without the trait), a fresh test context.
private func makeTestContext(
    name: String?,
    _ configure: (inout ContextValues) throws -> Void
) rethrows -> Context {
    if let testContext = ContextTrait.appliedContext {
        return try testContext.child(name: name ?? "withTestContext", configure)
    }
    let current = Test.current
    return try Context.testing(
        name: name ?? current?.displayName ?? current?.name ?? "test",
        onUnimplementedRead: UnimplementedReadIssue.record,
        configure
    )
}
