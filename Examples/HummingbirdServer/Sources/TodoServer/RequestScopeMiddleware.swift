// The Hummingbird recipe: a scope per request (Contextual's `RequestScope`) that covers the whole
// response, streamed bodies included; a `ContextError`, or a commit that fails before the response is
// sent, answered with a status and a message that names nothing of the wiring.

import Contextual
import HTTPTypes
import Hummingbird
import ServiceContextModule

// MARK: - Request ID header

extension HTTPField.Name {
    /// `x-request-id`: the request's ID, taken from the request when it brings a usable one, echoed in
    /// every response the middleware returns and every `ContextError` it answers (Hummingbird answers
    /// other errors).
    ///
    /// ```swift
    /// let id = request.headers[.requestID]
    /// ```
    public static let requestID = HTTPField.Name("x-request-id")!

    /// `x-tenant`: the tenant a client names, for `GET /relay`.
    ///
    /// ```swift
    /// let tenant = request.headers[.tenant]
    /// ```
    public static let tenant = HTTPField.Name("x-tenant")!

    /// `x-caller`: who the client is, for `GET /relay` (where a real server would authenticate).
    ///
    /// ```swift
    /// let caller = request.headers[.caller]
    /// ```
    public static let caller = HTTPField.Name("x-caller")!
}

// MARK: - Middleware

/// Serves each request in a ``Contextual/RequestScope`` below the app context, for the whole response.
///
/// The scope sets `requestID` and the values the ``ServiceContextBridge`` imports, and runs the rest of
/// the chain as ``Contextual/Context/current``, with the values the bridge exports in `ServiceContext`.
/// It ends with the response (see `Response.ending(_:)`). A ``Contextual/ContextError`` answers
/// ``Contextual/ContextError/httpStatusCode`` with ``Contextual/ContextError/publicMessage(requestID:)``
/// (the full message when `revealsErrors`, for development), and its full message goes to the app's log
/// with the request ID.
///
/// ```swift
/// router.add(middleware: RequestScopeMiddleware(base: RequestBase(app: app), bridge: .server))
/// ```
struct RequestScopeMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where the scopes start: below the app context, with the settings of the latest configuration.
    let base: RequestBase
    var bridge = ServiceContextBridge()
    var revealsErrors = false

    /// Serves the request in its own scope.
    ///
    /// ```swift
    /// let response = try await middleware.handle(request, context: context) { _, _ in Response(status: .ok) }
    /// ```
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let outer = ServiceContext.current ?? .topLevel
        let id = request.headers[.requestID] ?? bridge.crossingValue(ServiceContextBridge.requestIDName, in: outer)
        let scope = RequestScope(of: base.context, requestID: id) { [bridge] values, id in
            bridge.importValues(from: outer, into: &values)
            values.requestID = id
        }
        do {
            return try await scope.run {
                try await ServiceContext.withValue(bridge.serviceContext(for: scope.context, base: outer)) {
                    try await next(request, context).ending(scope)
                }
            }
        } catch {
            await scope.endAfterResponse()
            guard let error = error as? ContextError else { throw error }
            scope.context[\.logger].error("request \(scope.requestID) failed: \(error.message)")
            let message = revealsErrors ? error.description : error.publicMessage(requestID: scope.requestID)
            throw HTTPError(.init(code: error.httpStatusCode), headers: [.requestID: scope.requestID], message: message)
        }
    }
}

// MARK: - Ending the scope with the response

extension Response {
    /// The response, with the request's ID in `x-request-id` and `scope` ending when it is complete;
    /// called inside the scope. A body of known length up to 1 MiB (a buffer, as most handlers return) is
    /// written into memory there, then the scope ends before the response is sent, so that a failed
    /// shutdown (a commit) throws, to answer instead of it. A stream, or a larger body, holds the scope
    /// until it is written, or dropped (the client left); a failure then goes to the app's
    /// ``Contextual/ContextValues/shutdownFailureHandler``.
    ///
    /// ```swift
    /// try await scope.run { try await next(request, context).ending(scope) }
    /// ```
    consuming func ending(_ scope: RequestScope) async throws -> Response {
        headers[.requestID] = scope.requestID
        let body = self.body
        if let length = body.contentLength, length <= 1 << 20 {
            let buffer = BodyBuffer()
            try await body.write(buffer)
            self.body = buffer.body
            try await scope.end()
        } else {
            self.body = ResponseBody(contentLength: body.contentLength) { writer in
                try await scope.runThenEnd { try await body.write(writer) }
            }
        }
        return self
    }
}

/// A writer that keeps what a body writes: the one buffer most bodies write (else all of them in one)
/// and its trailing headers.
final class BodyBuffer: ResponseBodyWriter {
    var bytes: ByteBuffer?
    var trailers: HTTPFields?

    func write(_ buffer: ByteBuffer) async throws {
        if bytes == nil { bytes = buffer } else { bytes!.writeImmutableBuffer(buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws { trailers = trailingHeaders }

    /// What was written: a buffer (Hummingbird writes head and body at once), an empty body when nothing
    /// was, and a body that writes its trailing headers too when it had some.
    var body: ResponseBody {
        guard let trailers else { return bytes.map(ResponseBody.init(byteBuffer:)) ?? ResponseBody() }
        let bytes = self.bytes
        return ResponseBody(contentLength: bytes?.readableBytes ?? 0) { writer in
            if let bytes { try await writer.write(bytes) }
            try await writer.finish(trailers)
        }
    }
}
