// A failure to resolve what a request needs becomes an HTTP error response with Contextual's message,
// never a crash.

import Contextual
import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    /// `x-contextual-error`: the ``Contextual/ContextError/Code`` of a failed request.
    public static let contextualError = HTTPField.Name("x-contextual-error")!
}

/// A ``Contextual/ContextError`` as an HTTP response: status 500 (503 when the scope had already ended, as
/// while the server shuts down), with the error's message as a plain-text body and its code in the
/// `x-contextual-error` header.
///
/// ``RequestScopeMiddleware`` throws it for any `ContextError` a handler throws, so handlers resolve with
/// `try request.require(T.self)` (or `@Injected(T.self) var t: T?`) and let the error go: a hard
/// `@Injected(T.self)` for a missing object stops the process, which no response can catch.
///
/// ```swift
/// router.get("/report") { _, _ in
///     try Context.current.require(ReportBuilder.self).build()  // a 500 naming ReportBuilder if unwired
/// }
/// ```
public struct ContextErrorResponse: HTTPResponseError {
    /// The error.
    public let error: ContextError

    /// Wraps an error.
    ///
    /// ```swift
    /// throw ContextErrorResponse(error)
    /// ```
    public init(_ error: ContextError) { self.error = error }

    /// 503 when the scope had ended, 500 otherwise.
    ///
    /// ```swift
    /// ContextErrorResponse(error).status  // .internalServerError
    /// ```
    public var status: HTTPResponse.Status {
        error.code == .scopeEnded ? .serviceUnavailable : .internalServerError
    }

    /// The response: the status, the error's code in `x-contextual-error`, its message as the body.
    ///
    /// ```swift
    /// let response = try ContextErrorResponse(error).response(from: request, context: context)
    /// ```
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/plain; charset=utf-8", .contextualError: error.code.description],
            body: ResponseBody(byteBuffer: ByteBuffer(string: error.description + "\n"))
        )
    }
}
