// Request values across services: a tracer whose spans continue a W3C trace (`traceparent`, through
// swift-w3c-trace-context) and carry the values a request chose to share (`baggage`, W3C Baggage), and
// nothing else. A header that is malformed, oversized or names a value the server does not carry is
// ignored, with a log line.

import Contextual
import Foundation
import Hummingbird
import Logging
import LoopbackHTTP
import ServiceContextModule
import Synchronization
import Tracing
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

// MARK: - Tracer

/// A tracer that continues W3C traces across services: a span's trace ID is its parent's (in this
/// process, or from the caller's `traceparent`), its span ID is new; `inject` writes `traceparent` and,
/// in `baggage`, the crossing values of the current request (``Contextual/Context/current``, through
/// `bridge`); `extract` reads them back, keeping only the names `bridge` carries. Ended spans are kept (the last 1,000) for tests and logged at debug level; a server
/// in production exports them instead (swift-otel).
///
/// ```swift
/// let tracer = W3CTracer(bridge: .server, logger: logger)
/// InstrumentationSystem.bootstrap(tracer)
/// ```
public final class W3CTracer: Tracer {
    /// What crosses: the values written into `baggage`, the names taken from it.
    let bridge: ServiceContextBridge
    /// The names taken from a caller's `baggage`.
    let crossingNames: Set<String>
    let logger: Logger
    private let ended = Mutex<[EndedSpan]>([])

    /// The longest `baggage` header taken, in bytes (W3C Baggage's limit); a longer one is ignored.
    static let maximumBaggageBytes = 8_192
    /// The most baggage members taken (W3C Baggage's limit); a header with more is ignored.
    static let maximumBaggageMembers = 64

    /// Makes a tracer that carries across services what `bridge` says, and logs to `logger`.
    ///
    /// ```swift
    /// let tracer = W3CTracer(bridge: .server, logger: logger)
    /// ```
    public init(bridge: ServiceContextBridge, logger: Logger) {
        self.bridge = bridge
        self.crossingNames = bridge.crossingNames
        self.logger = logger
    }

    /// A span ended: what a test or an exporter reads.
    public struct EndedSpan: Sendable {
        /// The operation.
        public let operationName: String
        /// The kind: server, client, internal.
        public let kind: SpanKind
        /// The trace, shared by every span of one request across services (32 hex digits).
        public let traceID: String
        /// The span (16 hex digits).
        public let spanID: String
        /// The span that started this one, if any (16 hex digits).
        public let parentSpanID: String?
    }

    /// The spans ended so far, oldest first (the last 1,000).
    ///
    /// ```swift
    /// let server = tracer.endedSpans.filter { $0.kind == .server }
    /// ```
    public var endedSpans: [EndedSpan] { ended.withLock { $0 } }

    func record(_ span: EndedSpan) {
        logger.debug("span ended: \(span.operationName) trace \(span.traceID) span \(span.spanID)")
        ended.withLock {
            if $0.count == 1_000 { $0.removeFirst() }
            $0.append(span)
        }
    }

    /// Starts a span: a child of the span in `context`, if any, else the root of a new trace.
    public func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> W3CSpan {
        var spanContext = context()
        let parent = spanContext[SpanTraceContextKey.self]
        let trace = TraceContext(
            traceID: parent?.traceID ?? .random(),
            spanID: .random(),
            flags: parent?.flags ?? .sampled,
            state: parent?.state ?? TraceState()
        )
        spanContext[SpanTraceContextKey.self] = trace
        spanContext[ParentSpanIDKey.self] = parent?.spanID
        return W3CSpan(operationName: operationName, kind: kind, context: spanContext, tracer: self)
    }

    /// Ends nothing: spans are recorded as they end.
    public func forceFlush() {}

    // MARK: - Propagation

    /// Writes `traceparent` (and `tracestate`) for the span in `context`, and `baggage` for the crossing
    /// values of the current request's context.
    public func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext,
        into carrier: inout Carrier,
        using injector: Inject
    ) where Inject.Carrier == Carrier {
        if let trace = context[SpanTraceContextKey.self] {
            injector.inject(trace.traceParentHeaderValue, forKey: "traceparent", into: &carrier)
            if let state = trace.traceStateHeaderValue, !state.isEmpty {
                injector.inject(state, forKey: "tracestate", into: &carrier)
            }
        }
        let values = bridge.crossingValues(of: Context.current)
        if !values.isEmpty {
            let members = values.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.percentEncoded($0.value))" }
            injector.inject(members.joined(separator: ","), forKey: "baggage", into: &carrier)
        }
    }

    /// Reads `traceparent` into the span context the next span continues, and the crossing values of
    /// `baggage`; ignores, with a log line, a malformed or oversized header and names it does not carry.
    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    ) where Extract.Carrier == Carrier {
        if let parent = extractor.extract(key: "traceparent", from: carrier) {
            do {
                let state = extractor.extract(key: "tracestate", from: carrier)
                context[SpanTraceContextKey.self] = try TraceContext(
                    traceParentHeaderValue: parent,
                    traceStateHeaderValue: state
                )
            } catch {
                logger.warning("ignored a malformed traceparent header (\(parent.prefix(64))): \(error)")
            }
        }
        if let baggage = extractor.extract(key: "baggage", from: carrier), let values = takenValues(of: baggage) {
            context[CrossServiceValues.self] = values
        }
    }

    /// The crossing values of a `baggage` header, or nil (logged) when it is oversized or malformed.
    func takenValues(of header: String) -> [String: String]? {
        guard header.utf8.count <= Self.maximumBaggageBytes else {
            logger.warning(
                "ignored a baggage header of \(header.utf8.count) bytes (at most \(Self.maximumBaggageBytes))"
            )
            return nil
        }
        let members = header.split(separator: ",", omittingEmptySubsequences: false)
        guard members.count <= Self.maximumBaggageMembers else {
            logger.warning(
                "ignored a baggage header of \(members.count) members (at most \(Self.maximumBaggageMembers))"
            )
            return nil
        }
        var values: [String: String] = [:]
        var unknown: [String] = []
        for member in members {
            // `key=value;properties`: properties are not used here.
            let pair = member.split(separator: ";", maxSplits: 1)[...].first ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard parts.count == 2, Self.isToken(key),
                let value = parts[1].trimmingCharacters(in: .whitespaces).removingPercentEncoding
            else {
                logger.warning("ignored a malformed baggage header (\(header.prefix(64)))")
                return nil
            }
            if crossingNames.contains(key) { values[key] = value } else { unknown.append(key) }
        }
        if !unknown.isEmpty {
            logger.info("ignored baggage this service does not carry: \(unknown.prefix(8).joined(separator: ", "))")
        }
        return values
    }

    /// Whether `key` is an RFC 7230 token, as W3C Baggage requires of a key.
    static func isToken(_ key: String) -> Bool {
        !key.isEmpty
            && key.utf8.allSatisfy { byte in
                (0x21...0x7E).contains(byte) && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
            }
    }

    /// `value` percent-encoded for a baggage member: every byte outside the characters W3C Baggage
    /// allows unencoded, and `%` itself.
    static func percentEncoded(_ value: String) -> String {
        var allowed = CharacterSet(charactersIn: Unicode.Scalar(0x21)...Unicode.Scalar(0x7E))
        allowed.remove(charactersIn: "\",;\\%")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

// MARK: - Span

/// A span of ``W3CTracer``: its W3C trace context is in ``context``.
///
/// ```swift
/// withSpan("GET /whoami", ofKind: .client) { span in span.attributes["peer"] = "b" }
/// ```
public final class W3CSpan: Span {
    /// The service context of the span: its parent's, with the span's trace context.
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
    public var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    /// The span's attributes.
    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    /// Whether the span records: until it ends.
    public var isRecording: Bool { state.withLock { !$0.ended } }

    /// Not kept by this tracer.
    public func setStatus(_ status: SpanStatus) {}
    /// Not kept by this tracer.
    public func addEvent(_ event: SpanEvent) {}
    /// Not kept by this tracer.
    public func recordError<Instant: TracerInstant>(
        _ error: any Error,
        attributes: SpanAttributes,
        at instant: @autoclosure () -> Instant
    ) {}
    /// Not kept by this tracer.
    public func addLink(_ link: SpanLink) {}

    /// Ends the span, once: the tracer records it.
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

// MARK: - Calling a peer

/// Adds `GET /relay`: the request chooses a tenant (from `x-tenant`) and knows its caller (from
/// `x-caller`, where a real server authenticates), then calls `GET /whoami` on the peer service at
/// 127.0.0.1:`peerPort` in a client span, with `traceparent` and `baggage`: the peer's request continues
/// the trace and gets the request ID and the tenant, not the caller.
func addRelay(to router: Router<BasicRequestContext>, peerPort: Int) {
    router.get("/relay") { request, _ -> String in
        let relay = Context.current.child(name: "relay") {
            $0.tenant = request.headers[.tenant] ?? "none"
            $0.caller = request.headers[.caller] ?? "none"
        }
        return try await relay.run {
            try await withSpan("GET /whoami", ofKind: .client) { span in
                var headers: [(name: String, value: String)] = []
                InstrumentationSystem.instrument.inject(span.context, into: &headers, using: HeaderListInjector())
                let answer = try await withLoopbackConnection(port: peerPort) { peer in
                    try await peer.get("/whoami", headers: headers)
                }
                return "\(relay[\.caller]) asked; the peer saw \(answer.body)"
            }
        }
    }
}

/// Writes injected values as request headers.
struct HeaderListInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout [(name: String, value: String)]) {
        headers.append((key, value))
    }
}

extension ServiceContext {
    /// The trace of the current span, if any (32 hex digits).
    var traceID: String? { self[SpanTraceContextKey.self]?.traceID.description }

    /// The span that started the current one, in this service or its caller (16 hex digits).
    var parentSpanID: String? { self[ParentSpanIDKey.self]?.description }
}
