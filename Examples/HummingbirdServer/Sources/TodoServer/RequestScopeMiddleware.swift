// A scope per request, whose life covers the whole response: the handler, and the response's body when it
// is streamed after the middleware returned.

import Contextual
import HTTPTypes
import Hummingbird
import Logging
import ServiceContextModule
import Synchronization

extension HTTPField.Name {
    /// `x-request-id`: the request's ID, taken from the request when it has one, echoed in the response
    /// the middleware returns or answers a `ContextError` with (Hummingbird answers other errors).
    public static let requestID = HTTPField.Name("x-request-id")!
}

/// Serves each request in a scope of its own, below the app context, for the whole response.
///
/// The scope sets `requestID` (from the `x-request-id` header, or a new one), carries the values the
/// ``ServiceContextBridge`` chooses into `ServiceContext`, and runs the rest of the chain with the scope as
/// ``Contextual/Context/current``, so handlers read the request's values with `@Injected`. It ends
/// (shutting down the request's scoped objects) when the response is complete: at once for a body held
/// in memory; after the body is written for a streamed one; when the body is never written (the client
/// left), as soon as the response is dropped. A ``Contextual/ContextError`` thrown by a handler becomes
/// a ``ContextErrorResponse``, and its full message goes to the app's log with the request ID. A scope
/// whose shutdown fails (a commit that failed) answers the same way when the response is still unsent
/// (a body held in memory); once a streamed body was written, the failure is logged.
///
/// Hummingbird names its request-context type `Context`: in a middleware, Contextual's is
/// `Contextual.Context`.
///
/// ```swift
/// let router = Router()
/// router.add(middleware: RequestScopeMiddleware(app: app))
/// ```
public struct RequestScopeMiddleware<Context: RequestContext>: RouterMiddleware {
    let app: Contextual.Context
    let bridge: ServiceContextBridge
    let revealsErrors: Bool
    let ids: RequestIDs

    /// Makes the middleware for the requests of `app`.
    ///
    /// ```swift
    /// RequestScopeMiddleware<BasicRequestContext>(app: app, bridge: ServiceContextBridge().carrying(\.requestID, as: RequestIDServiceKey.self))
    /// ```
    ///
    /// - Parameters:
    ///   - app: The app context; each request's scope is its child.
    ///   - bridge: The request values carried into `ServiceContext` (none by default).
    ///   - revealsErrors: Whether a failed request's response carries the full error message, which
    ///     names the wiring: for development only (see ``ContextErrorResponse``).
    public init(
        app: Contextual.Context,
        bridge: ServiceContextBridge = ServiceContextBridge(),
        revealsErrors: Bool = false
    ) {
        self.app = app
        self.bridge = bridge
        self.revealsErrors = revealsErrors
        self.ids = RequestIDs()
    }

    /// Serves the request in its own scope.
    ///
    /// ```swift
    /// let response = try await middleware.handle(request, context: context) { request, context in
    ///     Response(status: .ok)
    /// }
    /// ```
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let requestID = request.headers[.requestID] ?? ids.next()
        let bridge = self.bridge
        let outer = ServiceContext.current ?? .topLevel
        let scope = app.scope(name: "request") { values in
            bridge.importValues(from: outer, into: &values)
            values.requestID = requestID
        }
        let lease = ScopeLease(scope, requestID: requestID)
        var response: Response
        do {
            response = try await scope.run {
                try await ServiceContext.withValue(bridge.serviceContext(for: scope, base: outer)) {
                    try await next(request, context)
                }
            }
        } catch let error as ContextError {
            scope[\.logger].error("request \(requestID) failed: \(error.message)")
            await lease.end()
            throw ContextErrorResponse(error, requestID: requestID, revealsErrors: revealsErrors)
        } catch {
            await lease.end()
            throw error
        }
        response.headers[.requestID] = requestID
        // A body held in memory reads nothing more: end the scope now, and keep Hummingbird's single write.
        // The response is unsent: a failed shutdown (a commit) answers instead of it.
        if response.body.isInMemory {
            if let failure = await lease.end() {
                throw ContextErrorResponse(failure, requestID: requestID, revealsErrors: revealsErrors)
            }
            return response
        }
        // A streamed body is written after this returns: keep the scope for it, then end it.
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            do {
                try await scope.run { try await body.write(writer) }
            } catch {
                await lease.end()
                throw error
            }
            await lease.end()
        }
        return response
    }
}

extension ResponseBody {
    /// Whether the body is a buffer (or empty) rather than a closure that writes it later: a body with no
    /// length is a closure; one with a length is told apart by reflection, since `ResponseBody` does not say
    /// what it holds. When reflection can't tell, the answer is `false`, the safe side: the scope then
    /// waits for the body.
    var isInMemory: Bool {
        guard contentLength != nil, let backing = Mirror(reflecting: self).children.first?.value else {
            return false
        }
        switch Mirror(reflecting: backing).children.first?.label {
        case "byteBuffer": return true
        case nil: return "\(backing)" == "empty"
        default: return false
        }
    }
}

/// Request IDs for requests that bring none: a prefix unique to this middleware, then a counter.
final class RequestIDs: Sendable {
    private let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
    private let counter = Atomic<Int>(0)

    func next() -> String { "\(prefix)-\(counter.add(1, ordering: .relaxed).newValue)" }
}

/// Ends a request's scope exactly once: after its body is written, or, when the body is never written,
/// when the response is dropped. A shutdown that fails is logged with the request's ID.
final class ScopeLease: Sendable {
    let scope: Contextual.Context
    let requestID: String
    private let ended = Atomic(false)

    init(_ scope: Contextual.Context, requestID: String) {
        self.scope = scope
        self.requestID = requestID
    }

    /// Ends the scope, unless it was ended; returns its shutdown's failure, if any.
    @discardableResult
    func end() async -> ContextError? {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
        return await Self.shutdown(scope, requestID: requestID)
    }

    deinit {
        guard !ended.load(ordering: .acquiring) else { return }
        let (scope, requestID) = (scope, requestID)
        Task { await Self.shutdown(scope, requestID: requestID) }
    }

    private static func shutdown(_ scope: Contextual.Context, requestID: String) async -> ContextError? {
        do {
            try await scope.shutdown()
            return nil
        } catch {
            scope[\.logger].error("request \(requestID): its scope failed to shut down: \(error.message)")
            return error
        }
    }
}
