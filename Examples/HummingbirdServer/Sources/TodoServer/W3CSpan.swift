// A span of `W3CTracer`: its W3C trace context, recorded by the tracer when it ends.

import ServiceContextModule
import Synchronization
import Tracing

// MARK: - W3CSpan

/// A span of ``W3CTracer``: its W3C trace context is in ``context``.
///
/// ```swift
/// withSpan("GET /whoami", ofKind: .client) { span in span.attributes["peer"] = "b" }
/// ```
public final class W3CSpan: Span {
    /// The service context of the span: its parent's, with the span's trace context.
    ///
    /// ```swift
    /// InstrumentationSystem.instrument.inject(span.context, into: &headers, using: HeaderListInjector())
    /// ```
    public let context: ServiceContext
    let kind: SpanKind
    let tracer: W3CTracer
    private let state: Mutex<(name: String, attributes: SpanAttributes, ended: Bool)>

    init(operationName: String, kind: SpanKind, context: ServiceContext, tracer: W3CTracer) {
        self.context = context
        self.kind = kind
        self.tracer = tracer
        self.state = Mutex((operationName, [:], false))
    }

    /// The operation's name.
    ///
    /// ```swift
    /// span.operationName = "/todos/{id}"
    /// ```
    public var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    /// The span's attributes.
    ///
    /// ```swift
    /// span.attributes["http.route"] = "/todos"
    /// ```
    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    /// Whether the span records: until it ends.
    ///
    /// ```swift
    /// if span.isRecording { span.attributes["peer"] = "b" }
    /// ```
    public var isRecording: Bool { state.withLock { !$0.ended } }

    /// Not kept by this tracer.
    ///
    /// ```swift
    /// span.setStatus(SpanStatus(code: .error))
    /// ```
    public func setStatus(_ status: SpanStatus) {}

    /// Not kept by this tracer.
    ///
    /// ```swift
    /// span.addEvent("retried")
    /// ```
    public func addEvent(_ event: SpanEvent) {}

    /// Not kept by this tracer.
    ///
    /// ```swift
    /// span.recordError(error)
    /// ```
    public func recordError<Instant: TracerInstant>(
        _ error: any Error,
        attributes: SpanAttributes,
        at instant: @autoclosure () -> Instant
    ) {}
    /// Not kept by this tracer.
    ///
    /// ```swift
    /// span.addLink(SpanLink(context: other.context, attributes: [:]))
    /// ```
    public func addLink(_ link: SpanLink) {}

    /// Ends the span, once: the tracer records it.
    ///
    /// ```swift
    /// span.end()
    /// ```
    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let name: String? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state.name
        }
        guard let name, let trace = context[SpanTraceContextKey.self] else { return }
        tracer.record(
            W3CTracer.EndedSpan(
                operationName: name,
                kind: kind,
                traceID: trace.traceID.description,
                spanID: trace.spanID.description,
                parentSpanID: context[ParentSpanIDKey.self]?.description
            )
        )
    }
}
