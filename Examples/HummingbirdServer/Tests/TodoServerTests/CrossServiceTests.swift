// Two services of the example on 127.0.0.1: a request to A calls B. The trace continues, the values A's
// request carries across arrive in B's request scope, and nothing else does; bad headers are ignored.

import Contextual
import Logging
import LoopbackHTTP
import Testing
import TodoServer
import Tracing

/// The process's tracer (instrumentation is bootstrapped once per process), and what it logs.
private enum TestTracing {
    static let log = RecordingLog()
    static let tracer: W3CTracer = {
        let tracer = W3CTracer(bridge: .server, logger: log.logger)
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}

/// Serves a traced app on 127.0.0.1 (calling the service on `peerPort` for `/relay`, when given), for
/// `body`, given its port; then stops it.
private func withTracedServer(peerPort: Int? = nil, _ body: (Int) async throws -> Void) async throws {
    _ = TestTracing.tracer
    try await withServerOnPort(tracing: true, peerPort: peerPort) { try await body($1) }
}

/// The value after `name=` in `text`, up to the next space.
private func field(_ name: String, in text: String) -> String? {
    guard let start = text.range(of: "\(name)=") else { return nil }
    return String(text[start.upperBound...].prefix { $0 != " " })
}

@Suite("Request values across services, on 127.0.0.1")
struct CrossServiceTests {
    @Test("A's request ID and tenant arrive in B's request scope, the caller does not, and the trace continues")
    func valuesAndTraceCross() async throws {
        var answer = ""
        try await withTracedServer { portB in
            try await withTracedServer(peerPort: portB) { portA in
                answer = try await withLoopbackConnection(port: portA) { http in
                    let response = try await http.get(
                        "/relay",
                        requestID: "relay-1",
                        headers: [("x-tenant", "acme"), ("x-caller", "alice")]
                    )
                    #expect(response.status == .ok)
                    return response.body
                }
            }
        }
        #expect(answer.hasPrefix("alice asked; the peer saw request=relay-1 tenant=acme caller=none "), "\(answer)")
        let trace = try #require(field("trace", in: answer))
        #expect(trace.count == 32 && trace != String(repeating: "0", count: 32))
        // The servers have stopped: every span of the trace has ended.
        let spans = TestTracing.tracer.endedSpans.filter { $0.traceID == trace }
        let serverA = try #require(spans.first { $0.kind == .server && $0.parentSpanID == nil })
        let client = try #require(spans.first { $0.kind == .client })
        let serverB = try #require(spans.first { $0.kind == .server && $0.parentSpanID != nil })
        #expect(spans.count == 3)
        #expect(client.parentSpanID == serverA.spanID, "A's call is a child of A's request")
        #expect(serverB.parentSpanID == client.spanID, "B's request is a child of A's call")
        #expect(field("parent", in: answer) == client.spanID)
    }

    @Test("A malformed tracestate is dropped, and the caller's trace continues without it")
    func malformedTraceState() async throws {
        let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        try await withTracedServer { port in
            let body = try await withLoopbackConnection(port: port) { http in
                try await http.get("/whoami", headers: [("traceparent", parent), ("tracestate", "Vendor=x")]).body
            }
            #expect(field("trace", in: body) == "4bf92f3577b34da6a3ce929d0e0e4736")
            #expect(field("parent", in: body) == "00f067aa0ba902b7")
        }
        #expect(TestTracing.log.lines.contains { $0.contains("ignored a malformed tracestate header") })
    }

    @Test("Only values a request set cross: an unset tenant is not sent")
    func unsetValuesStay() {
        let request = Context(name: "request") { $0.requestID = "r-9" }
        #expect(ServiceContextBridge.server.crossingValues(of: request) == ["request-id": "r-9"])
        let tenant = request.child(name: "tenant") { $0.tenant = "acme" }
        #expect(ServiceContextBridge.server.crossingValues(of: tenant) == ["request-id": "r-9", "tenant": "acme"])
    }

    @Test("Malformed, oversized or unknown headers are ignored with a log line, never a failure")
    func badHeadersIgnored() async throws {
        let huge = "tenant=" + String(repeating: "a", count: 9_000)
        let many = (1...65).map { "k\($0)=v" }.joined(separator: ",")
        let cases: [(headers: [(name: String, value: String)], tenant: String, logged: String)] = [
            ([("traceparent", "00-not-a-trace-01")], "none", "ignored a malformed traceparent header"),
            ([("baggage", huge)], "none", "ignored a baggage header of 9007 bytes"),
            ([("baggage", many)], "none", "ignored a baggage header of 65 members (at most 64)"),
            ([("baggage", "tenant=acme,session=s3cr3t")], "acme", "does not carry: session"),
            ([("baggage", "tenant")], "none", "ignored a malformed baggage header"),
            ([("baggage", ";tenant=evil")], "none", "ignored a malformed baggage header"),
            ([("baggage", "tenant=acme%0Aevil")], "none", "ignored the baggage member tenant"),
            ([("baggage", "tenant=%E2%82%AC%20eu")], "€ eu", ""),
            ([("baggage", "tenant=acme,")], "acme", ""),
            ([("baggage", "tenant=")], "none", "ignored the baggage member tenant"),
        ]
        try await withTracedServer { port in
            try await withLoopbackConnection(port: port) { http in
                for (headers, tenant, logged) in cases {
                    let linesBefore = TestTracing.log.lines.count
                    let response = try await http.get("/whoami", headers: headers)
                    #expect(response.status == .ok)
                    #expect(response.body.contains("tenant=\(tenant) caller=none "), "\(response.body)")
                    #expect(field("trace", in: response.body)?.count == 32, "a new trace begins")
                    if !logged.isEmpty {
                        let new = TestTracing.log.lines.dropFirst(linesBefore)
                        #expect(new.contains { $0.contains(logged) }, "\(headers): \(new)")
                    }
                }
            }
        }
    }
}
