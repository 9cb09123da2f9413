// `RequestScope`: a server request's scope, ended exactly once, when the last of its holders lets it go.
// Architecture: ARCHITECTURE.md, "Request scopes".

import Synchronization

// MARK: - Request scope

/// A server request's scope, with its request ID, that ends exactly once: when the last of its holders
/// ends it, or, when they never do (the response was dropped), as soon as nothing refers to it any more.
///
/// A middleware makes one per request and holds it; a response body written after the middleware
/// returned (a stream) holds it too, so the request's objects live until the body is written. Whoever
/// ends it last shuts the scope down:
///
/// - ``end()`` while the response is not sent yet: a shutdown that fails (a unit of work whose commit
///   failed) is thrown, for the middleware to answer with an error status instead of the response.
/// - ``endAfterResponse()`` once the response is sent: a failure goes to the scope's
///   ``ContextValues/shutdownFailureHandler`` (set it on the app context to log it), since no response
///   can carry it any more.
/// - When the scope is dropped with holds left, it is shut down in a task of its own, its failure going
///   to the same handler. Nothing waits for that task: an app context shut down while such a shutdown is
///   pending (a response dropped as the server stops) may end first.
///
/// ```swift
/// let request = RequestScope(of: app, requestID: headers["x-request-id"]) { values, id in
///     values.requestID = id
/// }
/// let response = try await request.run { try await handler.handle() }
/// try await request.end()  // shuts the scope down; throws a failed commit
/// ```
///
/// The scope's name is `request <ID>`, so every ``ContextError`` that names the scope names the request.
/// A `ContextError` a handler throws maps to an HTTP status and a message for the client that names
/// nothing of the wiring: ``ContextError/httpStatusCode`` and ``ContextError/publicMessage(requestID:)``.
///
/// The recipes for Hummingbird and Vapor are in <doc:UsingWithHummingbird> and <doc:UsingWithVapor>.
public final class RequestScope: Sendable {
    /// The request's scope: a child of the app context made with ``Context/scope(name:_:)``.
    ///
    /// ```swift
    /// let work = try request.context.require(UnitOfWork.self)
    /// ```
    public let context: Context

    /// The request's ID: the one the request brought, when it is a usable one, else a new one.
    ///
    /// ```swift
    /// response.headers["x-request-id"] = request.requestID
    /// ```
    public let requestID: String

    /// How many holders have yet to end the scope: 1 when made, one more per ``hold()``; 0 once it ended.
    /// Only the call that takes it from 1 to 0 shuts the scope down, which makes the end exactly once.
    private let holds = Atomic<Int>(1)

    // MARK: - Making

    /// Makes the scope of a request, as a child of `app`, held once (by its maker).
    ///
    /// ```swift
    /// let scope = RequestScope(of: app, requestID: request.headers[.requestID]) { values, id in
    ///     values.requestID = id
    ///     values.logger[metadataKey: "request"] = "\(id)"
    /// }
    /// ```
    ///
    /// A request ID from the client is a header anybody can write, and it goes into the server's log: it
    /// is kept only when it is 1 to 128 visible ASCII characters (no spaces, no control characters),
    /// else the request gets a new one, as it does when it brings none. New IDs are a prefix chosen at
    /// random per process, a dash and a counter (`k3x9f2-1`, `k3x9f2-2`, …).
    ///
    /// - Parameters:
    ///   - app: The context the request's scope is a child of: the app context.
    ///   - requestID: The ID the request brought (a header's value), or `nil`.
    ///   - configure: Sets the scope's overrides, given the request's ID; reads inside it see `app`'s
    ///     values.
    /// - Complexity: O(1) plus the cost of `configure`, as ``Context/scope(name:_:)``.
    public init(
        of app: Context,
        requestID: String? = nil,
        _ configure: (inout ContextValues, _ requestID: String) throws -> Void
    ) rethrows {
        let id = Self.id(from: requestID)
        self.requestID = id
        self.context = try app.scope(name: "request " + id) { values in try configure(&values, id) }
    }

    /// Makes the scope of a request with no overrides of its own, as a child of `app`, held once.
    ///
    /// ```swift
    /// let scope = RequestScope(of: app, requestID: request.headers[.requestID])
    /// ```
    ///
    /// - Parameters:
    ///   - app: The context the request's scope is a child of: the app context.
    ///   - requestID: The ID the request brought, kept when usable (see ``init(of:requestID:_:)``), or `nil`.
    public init(of app: Context, requestID: String? = nil) {
        let id = Self.id(from: requestID)
        self.requestID = id
        self.context = app.scope(name: "request " + id)
    }

    deinit {
        // Nobody refers to the scope any more: no other call can race this load.
        guard holds.load(ordering: .relaxed) > 0 else { return }
        let context = context
        Task { await Self.shutDown(context) }
    }

    // MARK: - Running

    /// Runs `body` with the request's scope as ``Context/current``, so that what it makes reads the
    /// request's values with `@Injected`.
    ///
    /// ```swift
    /// let response = try await request.run { try await next(request, context) }
    /// ```
    ///
    /// - Returns: What `body` returned.
    @inlinable
    @discardableResult
    public func run<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await context.run(isolation: isolation, body)
    }

    // MARK: - Holding and ending

    /// Holds the scope once more, for a holder that ends it on its own: a body written after the
    /// middleware returned. Each hold is ended by one ``end()`` or ``endAfterResponse()``.
    ///
    /// ```swift
    /// request.hold()
    /// return Response.Body(asyncStream: { writer in
    ///     try await request.runThenEnd { try await write(writer) }
    /// })
    /// ```
    ///
    /// - Returns: Whether the scope was held: `false` when it had already ended (its last hold was ended,
    ///   or its context was shut down directly), which a holder can't undo.
    @discardableResult
    public func hold() -> Bool {
        if context.isEnded { return false }
        var current = holds.load(ordering: .relaxed)
        while current > 0 {
            // Relaxed: the count orders nothing but itself; the shutdown is ordered by `release()`.
            let (exchanged, original) = holds.compareExchange(
                expected: current,
                desired: current + 1,
                ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Ends one hold of the scope; the last one shuts the scope down, before the response is sent.
    ///
    /// ```swift
    /// do {
    ///     try await request.end()
    /// } catch {
    ///     // a commit failed: answer error.httpStatusCode instead of the response
    /// }
    /// ```
    ///
    /// Ending more holds than there were does nothing.
    ///
    /// - Throws: ``ContextError/Code/shutdownFailed`` when the scope's objects failed to shut down (a
    ///   build still running at ``ContextValues/buildWaitLimit`` among them), from the call that shut it
    ///   down.
    nonisolated(nonsending) public func end() async throws(ContextError) {
        guard release() else { return }
        try await context.shutdown()
    }

    /// Ends one hold of the scope where no response can carry a failure of its shutdown any more: once the
    /// response is sent (after a streamed body was written, say), or when the request failed and is
    /// answered with an error. The last one shuts the scope down, its failure going to the scope's
    /// ``ContextValues/shutdownFailureHandler``.
    ///
    /// ```swift
    /// } catch {
    ///     await request.endAfterResponse()  // the request failed: answer the error
    /// }
    /// ```
    nonisolated(nonsending) public func endAfterResponse() async {
        guard release() else { return }
        await Self.shutDown(context)
    }

    /// Runs `body` with the request's scope as ``Context/current``, then ends one hold as
    /// ``endAfterResponse()`` does, whether `body` returned or threw: for a body written after the
    /// middleware returned, which holds the scope until it is written.
    ///
    /// ```swift
    /// response.body = ResponseBody { writer in
    ///     try await request.runThenEnd { try await body.write(writer) }
    /// }
    /// ```
    ///
    /// - Returns: What `body` returned.
    @discardableResult
    public func runThenEnd<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let result: Result
        do {
            result = try await context.run(isolation: isolation, body)
        } catch {
            await endAfterResponse()
            throw error
        }
        await endAfterResponse()
        return result
    }

    /// Whether the scope has ended: the last hold was ended, or the scope was shut down directly.
    ///
    /// ```swift
    /// try await request.end()
    /// request.isEnded  // true
    /// ```
    public var isEnded: Bool {
        holds.load(ordering: .acquiring) == 0 || context.isEnded
    }

    // MARK: - Internals

    /// Takes one hold away; true for the call that took the last one.
    private func release() -> Bool {
        var current = holds.load(ordering: .relaxed)
        while current > 0 {
            // Acquiring and releasing: the last release sees everything the other holders did with the
            // scope before their release, and the shutdown follows it.
            let (exchanged, original) = holds.compareExchange(
                expected: current,
                desired: current - 1,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return current == 1 }
            current = original
        }
        return false
    }

    /// Shuts `context` down, sending a failure to its shutdown failure handler.
    private static func shutDown(_ context: Context) async {
        do {
            try await context.shutdown()
        } catch {
            context[\.shutdownFailureHandler](error)
        }
    }

    /// `brought` if it is fit for a log line and a header, else a new ID.
    private static func id(from brought: String?) -> String {
        brought.flatMap(usableID) ?? RequestIDs.shared.next()
    }

    /// `id` if it is fit for a log line and a header: 1 to 128 visible ASCII characters.
    static func usableID(_ id: String) -> String? {
        let utf8 = id.utf8
        guard (1...128).contains(utf8.count), utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return id
    }
}
