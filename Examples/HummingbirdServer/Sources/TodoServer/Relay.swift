// `GET /relay`: a request that calls a peer service, carrying its trace and chosen values.

import Contextual
import Hummingbird
import LoopbackHTTP
import ServiceContextModule
import Tracing

// MARK: - Calling a peer

/// Adds `GET /relay`: the request chooses a tenant (from `x-tenant`) and knows its caller (from
/// `x-caller`, where a real server authenticates), then calls `GET /whoami` on the peer service at
/// 127.0.0.1:`peerPort` in a client span, with `traceparent` and `baggage`: the peer's request continues
/// the trace and gets the request ID and the tenant, not the caller.
func addRelay(to router: Router<BasicRequestContext>, peerPort: Int) {
    router.get("/relay") { request, _ -> String in
        let relay = Context.current.child(name: "relay") {
            if let tenant = request.headers[.tenant] { $0.tenant = tenant }
            if let caller = request.headers[.caller] { $0.caller = caller }
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
