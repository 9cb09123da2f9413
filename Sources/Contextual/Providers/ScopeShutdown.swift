// `ScopeShutdown`: an object shut down when the scope that built it ends.

// MARK: - ScopeShutdown

/// An object that must be shut down when the context that built it ends: a transaction to roll back, a
/// pool to drain, a file to flush.
///
/// When a scope ends (``Context/shutdown()`` or ``Context/withScope(isolation:name:_:body:)``), every object
/// that it built through a ``Lifetime/scoped`` or ``Lifetime/singleton`` provider and that adopts this
/// protocol is shut down, in reverse order of creation (an object after those it was built from).
///
/// ```swift
/// final class Transaction: ScopeShutdown {
///     func shutdown() async throws {
///         try await rollbackIfOpen()
///     }
/// }
/// ```
public protocol ScopeShutdown: AnyObject, Sendable {
    /// Releases what the object holds. A thrown error is collected and reported by the scope's
    /// ``Context/shutdown()``; the remaining objects are still shut down.
    ///
    /// ```swift
    /// func shutdown() async throws { try await connection.close() }
    /// ```
    func shutdown() async throws
}
