// The Vapor recipe: a scope per request that covers the whole response, streamed bodies included; a
// ContextError as an HTTP error response that names nothing of the wiring; the app context shut down
// after the server stopped.

import Contextual
import Synchronization
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

/// Serves each request in a scope of its own, below the app context. Vapor gives no hook after a streamed
/// body is written, so the scope is held by a lease: the middleware holds it until `next` returns, and
/// each body made with `Request.streamInScope` holds it until the body ends.
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
        let requestID = request.headers.first(name: "x-request-id") ?? request.id
        let scope = app.scope(name: "request") { $0.requestID = requestID }
        let lease = ScopeLease(scope, requestID: requestID, logger: request.logger)
        request.storage[ScopeLeaseKey.self] = lease
        let response: Response
        do {
            response = try await scope.run { try await next.respond(to: request) }
        } catch {
            await lease.releaseLoggingFailure()
            throw answer(error, request: request, requestID: requestID)
        }
        do {
            try await lease.release()  // the response is not sent yet: a failed commit answers 500, not 200
        } catch {
            throw answer(error, request: request, requestID: requestID)
        }
        response.headers.replaceOrAdd(name: "x-request-id", value: requestID)
        return response
    }

    /// A `ContextError` as a `ContextErrorAbort`, its full message logged with the request's ID; any
    /// other error as it is.
    private func answer(_ error: any Error, request: Request, requestID: String) -> any Error {
        guard let error = error as? ContextError else { return error }
        request.logger.error("request \(requestID) failed: \(error.message)")
        return ContextErrorAbort(error: error, requestID: requestID, revealing: revealErrors)
    }
}

extension Request {
    /// The request's scope. Vapor runs route handlers outside the middleware's task, so there
    /// `Context.current` is not the request's scope: make services with `request.scope.run { … }`.
    var scope: Contextual.Context {
        guard let lease = storage[ScopeLeaseKey.self] else {
            preconditionFailure("request.scope needs RequestScopeMiddleware: add it with app.middleware.use(_:)")
        }
        return lease.scope
    }

    /// A streamed body that runs in the request's scope, which stays open until the body ends.
    func streamInScope(
        _ write: @escaping @Sendable (any AsyncBodyStreamWriter) async throws -> Void
    ) -> Response.Body {
        guard let lease = storage[ScopeLeaseKey.self] else {
            preconditionFailure("streamInScope needs RequestScopeMiddleware: add it with app.middleware.use(_:)")
        }
        lease.retain()
        return Response.Body(asyncStream: { writer in
            do {
                try await lease.scope.run { try await write(writer) }
            } catch {
                await lease.releaseLoggingFailure()
                throw error
            }
            await lease.releaseLoggingFailure()  // the response is sent: a failed commit can only be logged
        })
    }
}

struct ScopeLeaseKey: StorageKey {
    typealias Value = ScopeLease
}

/// Ends a request's scope when its last holder releases it.
final class ScopeLease: Sendable {
    let scope: Contextual.Context
    let requestID: String
    let logger: Logger
    private let holders = Atomic(1)

    init(_ scope: Contextual.Context, requestID: String, logger: Logger) {
        (self.scope, self.requestID, self.logger) = (scope, requestID, logger)
    }

    func retain() { holders.add(1, ordering: .relaxed) }

    /// Releases a hold; the last one shuts the scope down and throws what its shutdown threw.
    func release() async throws(ContextError) {
        guard holders.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        try await scope.shutdown()
    }

    /// Releases a hold where no response can tell the client any more: a failed shutdown is logged.
    func releaseLoggingFailure() async {
        do {
            try await release()
        } catch {
            logger.error("request \(requestID): its scope failed to shut down: \(error.message)")
        }
    }
}

/// A `ContextError` as an HTTP response: 503 when the server is going away or busy, else 500 (see
/// `ContextError.httpStatusCode`), with a body that names nothing of the wiring but gives the request's
/// ID, also sent in `x-request-id`, to find the full message in the log. `revealing` sends the full
/// message instead, for development only.
///
/// ```swift
/// throw ContextErrorAbort(error: error, requestID: "r-42", revealing: false)
/// // 500, {"error":true,"reason":"The server could not complete the request (request ID: r-42)."}
/// ```
struct ContextErrorAbort: AbortError {
    let error: ContextError
    let requestID: String
    let revealing: Bool

    var status: HTTPResponseStatus { HTTPResponseStatus(statusCode: error.httpStatusCode) }
    var reason: String { revealing ? error.message : error.publicMessage(requestID: requestID) }
    var headers: HTTPHeaders { ["x-request-id": requestID] }
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
