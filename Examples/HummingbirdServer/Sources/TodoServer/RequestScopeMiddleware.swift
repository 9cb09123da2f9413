// The Hummingbird recipe: a scope per request (Contextual's `RequestScope`) that covers the whole
// response, streamed bodies included; a `ContextError`, or a commit that fails before the response is
// sent, answered with a status and a message that names nothing of the wiring.

import Contextual
import HTTPTypes
import Hummingbird
import ServiceContextModule

extension HTTPField.Name {
    /// `x-request-id`: the request's ID, taken from the request when it brings a usable one, echoed in
    /// every response the middleware returns or answers an error with.
    public static let requestID = HTTPField.Name("x-request-id")!
    /// `x-contextual-error`: a failed request's ``Contextual/ContextError/Code``, sent only when the
    /// server reveals errors (development).
    public static let contextualError = HTTPField.Name("x-contextual-error")!
}

/// Serves each request in a ``Contextual/RequestScope`` below the app context, for the whole response.
///
/// The scope sets `requestID` and the values the ``ServiceContextBridge`` imports, and runs the rest of
/// the chain as ``Contextual/Context/current``, with the values the bridge exports in `ServiceContext`.
/// A body of known length (a buffer, as most handlers return) is written into memory inside the scope,
/// then the scope ends before the response is sent: a failed shutdown (a commit) answers instead of it.
/// A stream, or a body over 1 MiB, holds the scope until it is written, or dropped (the client left);
/// a failure after it goes to the app's ``Contextual/ContextValues/shutdownFailureHandler``. A
/// ``Contextual/ContextError`` answers ``Contextual/ContextError/httpStatusCode`` with
/// ``Contextual/ContextError/publicMessage(requestID:)`` (the full message and code when `revealsErrors`,
/// for development), and its full message goes to the app's log with the request ID.
///
/// ```swift
/// router.add(middleware: RequestScopeMiddleware(app: app, bridge: .server))
/// ```
public struct RequestScopeMiddleware<Context: RequestContext>: RouterMiddleware {
    let app: Contextual.Context
    var bridge = ServiceContextBridge()
    var revealsErrors = false

    /// Serves the request in its own scope.
    ///
    /// ```swift
    /// let response = try await middleware.handle(request, context: context) { _, _ in Response(status: .ok) }
    /// ```
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let outer = ServiceContext.current ?? .topLevel
        let scope = RequestScope(of: app, requestID: request.headers[.requestID]) { [bridge] values, id in
            bridge.importValues(from: outer, into: &values)
            values.requestID = id
        }
        do {
            var response = try await scope.run {
                try await ServiceContext.withValue(bridge.serviceContext(for: scope.context, base: outer)) {
                    try await next(request, context).bufferingBody(upTo: 1 << 20)
                }
            }
            response.headers[.requestID] = scope.requestID
            if response.body.contentLength ?? .max > 1 << 20 {  // a stream: it holds the scope until written
                let body = response.body
                response.body = ResponseBody(contentLength: body.contentLength) { writer in
                    try await scope.runThenEnd { try await body.write(writer) }
                }
                return response
            }
            try await scope.end()  // the response is unsent: a failed commit answers 500, not 200
            return response
        } catch {
            await scope.endAfterResponse()
            guard let error = error as? ContextError else { throw error }
            app[\.logger].error("request \(scope.requestID) failed: \(error.message)")
            var headers: HTTPFields = [.requestID: scope.requestID]
            if revealsErrors { headers[.contextualError] = error.code.description }
            let message = revealsErrors ? error.description : error.publicMessage(requestID: scope.requestID)
            throw HTTPError(.init(code: error.httpStatusCode), headers: headers, message: message)
        }
    }
}

extension Response {
    /// The response with its body written into memory when its length is known and at most `limit`
    /// bytes, so that the body's work is done inside the request's scope.
    consuming func bufferingBody(upTo limit: Int) async throws -> Response {
        guard let length = body.contentLength, length <= limit else { return self }
        let buffer = BodyBuffer()
        try await body.write(buffer)
        body = ResponseBody(byteBuffer: buffer.buffer ?? ByteBuffer())
        return self
    }
}

/// A writer that keeps what a body writes: the one buffer most bodies write, else all of them in one.
final class BodyBuffer: ResponseBodyWriter {
    var buffer: ByteBuffer?

    func write(_ buffer: ByteBuffer) async throws {
        if self.buffer == nil { self.buffer = buffer } else { self.buffer!.writeImmutableBuffer(buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
