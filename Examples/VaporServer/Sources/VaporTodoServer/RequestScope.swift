// The Vapor recipe: a scope per request that covers the whole response, streamed bodies included; a
// ContextError as an HTTP error response that names nothing of the wiring; the app context shut down
// after the server stopped.

import Contextual
import Vapor

enum RequestIDKey: ContextKey {
    static var defaultValue: String { "none" }
}

extension ContextValues {
    var requestID: String {
        get { self[RequestIDKey.self] }
        set { self[RequestIDKey.self] = newValue }
    }
}

/// Serves each request in a ``Contextual/RequestScope`` of its own, below the app context. Vapor runs
/// route handlers outside the middleware's task, so they reach the scope through the request:
/// `request.scope`. A body streamed with `request.streamInScope` holds the scope until it ends.
///
/// A `ContextError`, from the handler or from the scope's shutdown (a failed commit, say), answers a 500
/// or a 503 whose body names nothing of the wiring, only the request's ID (also in `x-request-id`); the
/// full message goes to the request's logger with that ID. `revealErrors: true` sends the full message
/// to the client instead: for development only (the recipe's `main` sets it when the environment
/// variable `CONTEXTUAL_REVEAL_ERRORS` is `1`).
///
/// ```swift
/// application.middleware.use(RequestScopeMiddleware(app: app, revealErrors: false))
/// ```
struct RequestScopeMiddleware: AsyncMiddleware {
    let app: Contextual.Context
    var revealErrors = false

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        // Vapor's request ID is the client's x-request-id, usable or not, or a new one: keep it only if usable.
        let scope = RequestScope(of: app, requestID: request.id) { [logger = request.logger] values, id in
            var logger = logger
            logger[metadataKey: "request-id"] = "\(id)"
            values.requestID = id
            values.shutdownFailureHandler = { [logger] in logger.error("\($0.message)") }  // after a stream was sent
        }
        request.logger[metadataKey: "request-id"] = "\(scope.requestID)"
        request.storage[RequestScopeKey.self] = scope
        do {
            let response = try await scope.run { try await next.respond(to: request) }
            try await scope.end()  // the response is not sent yet: a failed commit answers 500, not 200
            response.headers.replaceOrAdd(name: "x-request-id", value: scope.requestID)
            return response
        } catch {
            await scope.endAfterResponse()
            guard let error = error as? ContextError else { throw error }
            request.logger.error("request \(scope.requestID) failed: \(error.message)")
            let reason = revealErrors ? error.message : error.publicMessage(requestID: scope.requestID)
            let status = HTTPResponseStatus(statusCode: error.httpStatusCode)
            throw Abort(status, headers: ["x-request-id": scope.requestID], reason: reason)
        }
    }
}

struct RequestScopeKey: StorageKey {
    typealias Value = RequestScope
}

extension Request {
    /// The request's scope. Vapor runs route handlers outside the middleware's task, so there
    /// `Context.current` is not the request's scope: make services with `request.scope.run { … }`.
    var scope: Contextual.Context { requestScope.context }

    /// A streamed body that runs in the request's scope, which it holds until the body ends.
    func streamInScope(
        _ write: @escaping @Sendable (any AsyncBodyStreamWriter) async throws -> Void
    ) -> Response.Body {
        let scope = requestScope
        scope.hold()
        return Response.Body(asyncStream: { writer in try await scope.runThenEnd { try await write(writer) } })
    }

    private var requestScope: RequestScope {
        guard let scope = storage[RequestScopeKey.self] else {
            preconditionFailure("request.scope needs RequestScopeMiddleware: add it with app.middleware.use(_:)")
        }
        return scope
    }
}

/// Shuts the app context down when the application shuts down, after its server stopped.
struct AppContextLifecycle: LifecycleHandler {
    let app: Contextual.Context

    func shutdownAsync(_ application: Application) async {
        do {
            try await app.shutdown()
        } catch {
            application.logger.error("the app context failed to shut down: \(error)")
        }
    }
}
