// ServiceContext (swift-distributed-tracing, swift-log's metadata providers): chosen request values carried
// from a Contextual context into a ServiceContext, and back.

import Contextual
import ServiceContextModule

/// The request ID in a `ServiceContext`, as tracers and loggers see it.
///
/// ```swift
/// ServiceContext.current?[RequestIDServiceKey.self]  // "r-42" while serving request r-42
/// ```
public enum RequestIDServiceKey: ServiceContextKey {
    /// A string.
    public typealias Value = String
    /// The name tracers show.
    public static var nameOverride: String? { "request.id" }
}

/// Which context values travel into a `ServiceContext` and back.
///
/// ```swift
/// let bridge = ServiceContextBridge().carrying(\.requestID, as: RequestIDServiceKey.self)
/// let serviceContext = bridge.serviceContext(for: request, base: .topLevel)
/// serviceContext[RequestIDServiceKey.self]  // the request's ID
/// ```
public struct ServiceContextBridge: Sendable {
    private var exports: [@Sendable (Context, inout ServiceContext) -> Void] = []
    private var imports: [@Sendable (ServiceContext, inout ContextValues) -> Void] = []

    /// A bridge that carries nothing.
    ///
    /// ```swift
    /// let none = ServiceContextBridge()
    /// ```
    public init() {}

    /// This bridge, also carrying the value at `keyPath` as `key`.
    ///
    /// ```swift
    /// let bridge = ServiceContextBridge().carrying(\.requestID, as: RequestIDServiceKey.self)
    /// ```
    public func carrying<Key: ServiceContextKey>(
        _ keyPath: WritableKeyPath<ContextValues, Key.Value> & Sendable,
        as key: Key.Type
    ) -> ServiceContextBridge {
        var bridge = self
        bridge.exports.append { context, serviceContext in serviceContext[Key.self] = context[keyPath] }
        bridge.imports.append { serviceContext, values in
            if let value = serviceContext[Key.self] { values[keyPath: keyPath] = value }
        }
        return bridge
    }

    /// `base` with the carried values of `context`.
    ///
    /// ```swift
    /// try await ServiceContext.withValue(bridge.serviceContext(for: request, base: .topLevel)) { … }
    /// ```
    public func serviceContext(for context: Context, base: ServiceContext) -> ServiceContext {
        var serviceContext = base
        for export in exports { export(context, &serviceContext) }
        return serviceContext
    }

    /// Sets, in `values`, the carried values that `serviceContext` holds.
    ///
    /// ```swift
    /// let job = app.scope(name: "job") { bridge.importValues(from: ServiceContext.current ?? .topLevel, into: &$0) }
    /// ```
    public func importValues(from serviceContext: ServiceContext, into values: inout ContextValues) {
        for entry in imports { entry(serviceContext, &values) }
    }
}
