// A failure to resolve what a request needs becomes an HTTP error response, never a crash, and never
// shows the client the wiring.

import Contextual
import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    /// `x-contextual-error`: the ``Contextual/ContextError/Code`` of a failed request, sent only when the
    /// server reveals errors (development).
    public static let contextualError = HTTPField.Name("x-contextual-error")!
}

/// A ``Contextual/ContextError`` as an HTTP response: ``Contextual/ContextError/httpStatusCode`` (503 when
/// the server is going away or busy: the scope had ended, a wait was cancelled or timed out; 500
/// otherwise), the request's ID in
/// `x-request-id`, and ``Contextual/ContextError/publicMessage(requestID:)`` as a plain-text body, which
/// names nothing of the wiring. ``RequestScopeMiddleware`` logs the full message with the same request
/// ID; with `revealsErrors` (development), the body is the full message and the code is in
/// `x-contextual-error`.
///
/// ``RequestScopeMiddleware`` throws it for any `ContextError` a handler throws, so handlers resolve with
/// `try request.require(T.self)` (or `@Injected(T.self) var t: T?`) and let the error go: a hard
/// `@Injected(T.self)` for a missing object stops the process, which no response can catch.
///
/// ```swift
/// router.get("/report") { _, _ in
///     try Context.current.require(ReportBuilder.self).build()  // a 500 naming nothing of the wiring
/// }
/// ```
public struct ContextErrorResponse: HTTPResponseError {
    /// The error.
    public let error: ContextError
    /// The failed request's ID.
    public let requestID: String
    /// Whether the body is the full message, for development.
    public let revealsErrors: Bool

    /// Wraps an error of the request `requestID`.
    ///
    /// ```swift
    /// throw ContextErrorResponse(error, requestID: "r-42")
    /// ```
    public init(_ error: ContextError, requestID: String, revealsErrors: Bool = false) {
        self.error = error
        self.requestID = requestID
        self.revealsErrors = revealsErrors
    }

    /// The error's HTTP status: 503 when the server is going away or busy, 500 otherwise.
    ///
    /// ```swift
    /// ContextErrorResponse(error, requestID: "r-42").status  // .internalServerError
    /// ```
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: error.httpStatusCode) }

    /// The response: the status, the request's ID, the public message as the body (or, revealing errors,
    /// the full message and the code).
    ///
    /// ```swift
    /// let response = try ContextErrorResponse(error, requestID: "r-42").response(from: request, context: context)
    /// ```
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .requestID: requestID]
        if revealsErrors { headers[.contextualError] = error.code.description }
        let body = revealsErrors ? error.description : error.publicMessage(requestID: requestID)
        let buffer = ByteBuffer(string: body + "\n")
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }
}
