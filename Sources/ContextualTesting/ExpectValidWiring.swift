// `expectValidWiring`: the one-line check that a context's wiring resolves, recording an issue if not.

public import Contextual
public import Testing

// MARK: - expectValidWiring

/// Validates `context`'s wiring with `Context.validate()` (every provider it sees resolves: no missing
/// object, cycle, captive dependency or throwing factory) and records an `Issue` with the error's message.
///
/// ```swift
/// @Test func wiring() {
///     expectValidWiring(AppWiring.context())
/// }
/// ```
///
/// The same as `#expect(throws: Never.self) { try context.validate() }`, with the error's full message.
///
/// - Parameters:
///   - context: The context to check; by default the current one (the test's, inside a `.context` trait).
///   - sourceLocation: Where the issue is recorded; the caller's line by default.
/// - Returns: Whether the wiring is valid.
@discardableResult
public func expectValidWiring(
    _ context: Context = .current,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    do {
        try context.validate()
        return true
    } catch {
        Issue.record(Comment(rawValue: error.description), sourceLocation: sourceLocation)
        return false
    }
}

/// Prepares `context`'s wiring with `Context.prepare()` (every provider it sees resolves, async ones
/// built, in dependency order, as at boot) and records an `Issue` with the error's message. Use it in an
/// async test: what the synchronous form cannot build (an async singleton, and what requires one) it
/// builds.
///
/// ```swift
/// @Test func wiring() async {
///     await expectValidWiring(AppWiring.context())
/// }
/// ```
///
/// - Parameters:
///   - context: The context to check; by default the current one (the test's, inside a `.context` trait).
///   - sourceLocation: Where the issue is recorded; the caller's line by default.
/// - Returns: Whether the wiring is valid.
@discardableResult
public func expectValidWiring(
    _ context: Context = .current,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> Bool {
    do {
        try await context.prepare()
        return true
    } catch {
        Issue.record(Comment(rawValue: error.description), sourceLocation: sourceLocation)
        return false
    }
}
