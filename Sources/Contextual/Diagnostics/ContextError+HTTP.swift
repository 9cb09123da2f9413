// A `ContextError` as a server answers it: an HTTP status, and a message for the client that names
// nothing of the wiring.

// MARK: - HTTP

extension ContextError {
    /// The HTTP status code a server answers a request that failed with this error: 503 (Service
    /// Unavailable) when the failure says the server is going away or is busy, so that a client or a load
    /// balancer may try again (``Code/scopeEnded``, as while the server shuts down; ``Code/cancelled``;
    /// ``Code/buildTimedOut``); 500 (Internal Server Error) for every other code, a mistake in the wiring
    /// or a dependency that failed.
    ///
    /// ```swift
    /// do {
    ///     return try request.require(ReportBuilder.self).build()
    /// } catch let error as ContextError {
    ///     return Response(status: error.httpStatusCode, body: error.publicMessage(requestID: id))
    /// }
    /// ```
    public var httpStatusCode: Int {
        switch code {
        case .scopeEnded, .cancelled, .buildTimedOut: 503
        default: 500
        }
    }

    /// What a server tells its client about this error: that the request failed, whether to try again,
    /// and the request's ID, to find the full message in the server's log. It names nothing of the wiring
    /// (no type, key, context or provider, no underlying error), which ``message`` does: log that, with
    /// the same request ID.
    ///
    /// ```swift
    /// logger.error("request \(id) failed: \(error.message)")
    /// let body = error.publicMessage(requestID: id)
    /// // "The server could not complete the request (request ID: r-42)."
    /// ```
    ///
    /// - Parameter requestID: The request's ID, as the response and the log give it; `nil` leaves it out.
    /// - Returns: One sentence: "The server could not complete the request" for a 500, "The server cannot
    ///   complete the request now; try again later" for a 503 (see ``httpStatusCode``).
    public func publicMessage(requestID: String?) -> String {
        let sentence =
            httpStatusCode == 503
            ? "The server cannot complete the request now; try again later"
            : "The server could not complete the request"
        guard let requestID else { return sentence + "." }
        return "\(sentence) (request ID: \(requestID))."
    }
}
