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
    /// The values that cross to the services a request calls, by name (W3C `baggage`).
    private var crossing: [String: @Sendable (Context) -> String?] = [:]
    /// How each crossing value a caller sent is set in a request's values.
    private var crossingImports: [@Sendable ([String: String], inout ContextValues) -> Void] = []

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

    /// The name under which the request ID crosses to the services a request calls.
    ///
    /// ```swift
    /// let bridge = ServiceContextBridge().crossing(\.requestID, as: ServiceContextBridge.requestIDName)
    /// ```
    public static let requestIDName = "request-id"

    /// This bridge, also carrying the value at `keyPath` to the services a request calls, as `name` in
    /// W3C `baggage` (written by ``W3CTracer`` when a request calls out, when the request set it), and
    /// from a caller into the request's scope. Only values marked so leave the process.
    ///
    /// ```swift
    /// let bridge = ServiceContextBridge().crossing(\.tenant, as: "tenant")
    /// ```
    ///
    /// - Precondition: No other value crosses as `name`.
    public func crossing(
        _ keyPath: WritableKeyPath<ContextValues, String> & Sendable,
        as name: String
    ) -> ServiceContextBridge {
        precondition(crossing[name] == nil, "two values cross as '\(name)': give each its own name")
        var bridge = self
        // Nil when not set: the value a context that sets nothing reads.
        bridge.crossing[name] = { context in
            let value = context[keyPath]
            return value == Context.root[keyPath] ? nil : value
        }
        bridge.crossingImports.append { sent, values in
            if let value = sent[name] { values[keyPath: keyPath] = value }
        }
        return bridge
    }

    /// The names of the values that cross to the services a request calls.
    ///
    /// ```swift
    /// ServiceContextBridge.server.crossingNames  // ["request-id", "tenant"]
    /// ```
    public var crossingNames: Set<String> { Set(crossing.keys) }

    /// The values of `context` that cross to the services it calls, by name: those it sets (a value that
    /// reads as in a context that sets nothing is left out).
    ///
    /// ```swift
    /// bridge.crossingValues(of: Context.current)  // ["request-id": "r-1", "tenant": "acme"]
    /// ```
    public func crossingValues(of context: Context) -> [String: String] {
        crossing.compactMapValues { $0(context) }
    }

    /// The value a caller sent as `name` (in `baggage`), found in `serviceContext`, if any.
    ///
    /// ```swift
    /// let id = request.headers[.requestID] ?? bridge.crossingValue(ServiceContextBridge.requestIDName, in: outer)
    /// ```
    public func crossingValue(_ name: String, in serviceContext: ServiceContext) -> String? {
        serviceContext[CrossServiceValues.self]?[name]
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
        // A caller's crossing values, looked up once: most requests come with none.
        guard !crossingImports.isEmpty, let sent = serviceContext[CrossServiceValues.self] else { return }
        for entry in crossingImports { entry(sent, &values) }
    }
}
