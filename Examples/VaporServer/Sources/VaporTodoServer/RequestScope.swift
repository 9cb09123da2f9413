// The Vapor recipe: a scope per request that covers the whole response, streamed bodies included; a
// ContextError as an HTTP error response; the app context shut down after the server stopped.
// Not built by CI (Vapor takes about 8 minutes to build there): see Package.swift.

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
struct RequestScopeMiddleware: AsyncMiddleware {
    let app: Contextual.Context

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let requestID = request.headers.first(name: "x-request-id") ?? request.id
        let scope = app.scope(name: "request") { $0.requestID = requestID }
        let lease = ScopeLease(scope)
        request.storage[ScopeLeaseKey.self] = lease
        do {
            let response = try await scope.run { try await next.respond(to: request) }
            response.headers.replaceOrAdd(name: "x-request-id", value: requestID)
            await lease.release()
            return response
        } catch let error as ContextError {
            await lease.release()
            throw ContextErrorAbort(error)
        } catch {
            await lease.release()
            throw error
        }
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
                await lease.release()
                throw error
            }
            await lease.release()
        })
    }
}

struct ScopeLeaseKey: StorageKey {
    typealias Value = ScopeLease
}

/// Ends a request's scope when its last holder releases it.
final class ScopeLease: Sendable {
    let scope: Contextual.Context
    private let holders = Atomic(1)

    init(_ scope: Contextual.Context) { self.scope = scope }

    func retain() { holders.add(1, ordering: .relaxed) }

    func release() async {
        guard holders.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        try? await scope.shutdown()
    }
}

/// A `ContextError` as an HTTP response: 500 (503 when the scope had ended), the library's message as
/// the reason, its code in `x-contextual-error`.
struct ContextErrorAbort: AbortError {
    let error: ContextError

    init(_ error: ContextError) { self.error = error }

    var status: HTTPResponseStatus { error.code == .scopeEnded ? .serviceUnavailable : .internalServerError }
    var reason: String { error.description }
    var headers: HTTPHeaders { ["x-contextual-error": error.code.description] }
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
