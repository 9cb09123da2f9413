// A tracer whose spans continue a W3C trace across services (`traceparent`, through
// swift-w3c-trace-context) and carry the values a request chose to share (`baggage`, W3C Baggage), and
// nothing else. A header that is malformed or oversized, and a value the server does not carry, is
// ignored, with a log line.

import Contextual
import Foundation
import Logging
import ServiceContextModule
import Synchronization
import Tracing
import W3CTraceContext

// MARK: - W3CTracer

/// A tracer that continues W3C traces across services: a span's trace ID is its parent's (in this
/// process, or from the caller's `traceparent`), its span ID is new. `inject` writes `traceparent` (and
/// `tracestate`) and, in `baggage`, the crossing values set in the current request's context
/// (``Contextual/Context/current``, through `bridge`); `extract` reads them back, keeping only the names
/// `bridge` carries. Ended spans are kept (the last 1,000) for tests and logged at debug level; a server in
/// production exports them instead (swift-otel).
///
/// Baggage comes from whoever calls: accept it only from trusted callers (strip it at the edge, in the
/// gateway), and do not authorize on a value it carries.
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

    /// The longest `baggage` header this service takes, in bytes: the size W3C Baggage asks every
    /// platform to propagate at least. A longer one is ignored.
    static let maximumBaggageBytes = 8_192
    /// The most `baggage` members this service takes: the count W3C Baggage asks every platform to
    /// propagate at least. A header with more is ignored.
    static let maximumBaggageMembers = 64
    /// The longest value taken, in bytes of UTF-8, once decoded.
    static let maximumValueLength = 256

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
    ///
    /// ```swift
    /// let server = tracer.endedSpans.first { $0.kind == .server }
    /// ```
    public struct EndedSpan: Sendable {
        /// The operation, e.g. `/whoami` or `GET /whoami`.
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
    ///
    /// ```swift
    /// let span = tracer.startSpan("GET /whoami", context: .current ?? .topLevel, ofKind: .client)
    /// ```
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

    /// Does nothing: spans are recorded as they end.
    ///
    /// ```swift
    /// tracer.forceFlush()
    /// ```
    public func forceFlush() {}

    // MARK: - Propagation

    /// Writes `traceparent` (and `tracestate`) for the span in `context`, and `baggage` for the crossing
    /// values set in the current request's context.
    ///
    /// ```swift
    /// InstrumentationSystem.instrument.inject(span.context, into: &headers, using: HeaderListInjector())
    /// ```
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

    /// Reads `traceparent` (and `tracestate`) into the span context the next span continues, and the
    /// crossing values of `baggage`; ignores, with a log line, a malformed or oversized header, and
    /// members it does not carry.
    ///
    /// ```swift
    /// tracer.extract(headers, into: &context, using: extractor)  // before the request's span starts
    /// ```
    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    ) where Extract.Carrier == Carrier {
        if let parent = extractor.extract(key: "traceparent", from: carrier) {
            context[SpanTraceContextKey.self] = trace(
                parent: parent,
                state: extractor.extract(key: "tracestate", from: carrier)
            )
        }
        if let baggage = extractor.extract(key: "baggage", from: carrier), let values = takenValues(of: baggage) {
            context[CrossServiceValues.self] = values
        }
    }

    /// The trace context of a caller's `traceparent` and `tracestate`: nil (logged) when `traceparent`
    /// does not parse; without the state (logged) when only `tracestate` does not.
    func trace(parent: String, state: String?) -> TraceContext? {
        guard let trace = try? TraceContext(traceParentHeaderValue: parent) else {
            logger.warning("ignored a malformed traceparent header: a new trace begins")
            return nil
        }
        guard let state, !state.isEmpty else { return trace }
        guard let withState = try? TraceContext(traceParentHeaderValue: parent, traceStateHeaderValue: state) else {
            logger.warning("ignored a malformed tracestate header: the trace continues without it")
            return trace
        }
        return withState
    }

    /// The crossing values of a `baggage` header, or nil (logged) when it is oversized or malformed; a
    /// member whose value cannot be taken is dropped (logged), and so is one this service does not carry.
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
        // Empty members (a trailing comma) are tolerated, as in every HTTP list.
        for member in members where !member.allSatisfy({ $0 == " " || $0 == "\t" }) {
            // `key=value;properties`: properties are not used here.
            let pair = member.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            guard parts.count == 2, Self.isToken(key) else {
                logger.warning("ignored a malformed baggage header: a member is not key=value")
                return nil
            }
            guard crossingNames.contains(key) else {
                unknown.append(key)
                continue
            }
            guard let value = Self.takenValue(parts[1]) else {
                logger.warning("ignored the baggage member \(key): its value is not short, printable text")
                continue
            }
            values[key] = value
        }
        if !unknown.isEmpty {
            logger.debug("ignored baggage this service does not carry: \(unknown.prefix(8).joined(separator: ", "))")
        }
        return values
    }

    /// A member's value, percent-decoded, when it is valid and, decoded, 1 to ``maximumValueLength`` bytes
    /// of printable text; else nil.
    static func takenValue(_ raw: Substring) -> String? {
        let encoded = raw.trimmingCharacters(in: .whitespaces)
        // W3C Baggage: printable ASCII except space, `"`, `,`, `;` and `\`; anything else is percent-encoded.
        guard encoded.utf8.allSatisfy({ (0x21...0x7E).contains($0) && !"\",;\\".utf8.contains($0) }),
            let value = encoded.removingPercentEncoding,
            (1...maximumValueLength).contains(value.utf8.count),
            value.unicodeScalars.allSatisfy({ !$0.properties.generalCategory.isControl })
        else { return nil }
        return value
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

extension Unicode.GeneralCategory {
    /// Whether characters of this category are control or format characters (a line break, say).
    var isControl: Bool { self == .control || self == .format || self == .lineSeparator || self == .paragraphSeparator }
}
