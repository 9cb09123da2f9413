// What a request carries to the services it calls, and the trace it continues, in a `ServiceContext`.

import ServiceContextModule
import W3CTraceContext

// MARK: - What crosses

/// The values a caller sent in `baggage` that this service carries (``ServiceContextBridge/crossingNames``),
/// by name: what ``W3CTracer`` extracts, for the request-scope middleware to import.
///
/// ```swift
/// ServiceContext.current?[CrossServiceValues.self]?["tenant"]  // "acme"
/// ```
public enum CrossServiceValues: ServiceContextKey {
    /// Values by name.
    public typealias Value = [String: String]
}

/// The W3C trace context of the current span, in a `ServiceContext`.
enum SpanTraceContextKey: ServiceContextKey {
    typealias Value = TraceContext
}

/// The span that started the current one, in this service or the one that called it.
enum ParentSpanIDKey: ServiceContextKey {
    typealias Value = SpanID
}

extension ServiceContext {
    /// The trace of the current span, if any (32 hex digits).
    var traceID: String? { self[SpanTraceContextKey.self]?.traceID.description }

    /// The span that started the current one, in this service or its caller (16 hex digits).
    var parentSpanID: String? { self[ParentSpanIDKey.self]?.description }
}
