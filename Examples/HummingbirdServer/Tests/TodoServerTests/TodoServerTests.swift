// The server's wiring, tested through Hummingbird's test client: the router in process, and a live server
// on 127.0.0.1 for the lifecycle.

import Contextual
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceContextModule
import Testing
import TodoServer

/// An app context with an in-memory database, prepared, and the application serving it.
func makeApplication(
    audit: ScopeAudit = ScopeAudit()
) async throws -> (app: Context, application: some ApplicationProtocol) {
    try await buildApplication(config: ServerConfig(), audit: audit, port: 0, logger: Logger(label: "test"))
}

@Suite("The Hummingbird server wired with Contextual")
struct TodoServerTests {
    @Test("A handler reads the request's ID with @Injected, and so does its scoped unit of work")
    func requestID() async throws {
        let audit = ScopeAudit()
        let (_, application) = try await makeApplication(audit: audit)
        try await application.test(.router) { client in
            for id in ["r-1", "r-2"] {
                let response = try await client.execute(uri: "/hello", method: .get, headers: [.requestID: id])
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "hello \(id) \(id)")
                #expect(response.headers[.requestID] == id)
                #expect(audit.lastShutDown == id)
                #expect(
                    audit.built == audit.shutDown && audit.repeatedShutdowns == 0,
                    "the unit of work of \(id) was shut down once, after its response"
                )
            }
        }
    }

    @Test("A request without an ID gets a new one, different for each request")
    func generatedIDs() async throws {
        let (_, application) = try await makeApplication()
        try await application.test(.router) { client in
            let first = try await client.execute(uri: "/hello", method: .get).headers[.requestID]
            let second = try await client.execute(uri: "/hello", method: .get).headers[.requestID]
            #expect(first != nil)
            #expect(first != second)
        }
    }

    @Test("A streamed body runs in the request's scope: its unit of work is alive, then shut down once")
    func streamedBody() async throws {
        let audit = ScopeAudit()
        let (_, application) = try await makeApplication(audit: audit)
        try await application.test(.router) { client in
            for title in ["write", "ship"] {
                let added = try await client.execute(
                    uri: "/todos",
                    method: .post,
                    headers: [.requestID: "add-\(title)"],
                    body: ByteBuffer(string: title)
                )
                #expect(added.status == .ok)
            }
            let response = try await client.execute(uri: "/todos/stream", method: .get, headers: [.requestID: "s-1"])
            #expect(
                String(buffer: response.body) == """
                    write (read by s-1, shut down: false)
                    ship (read by s-1, shut down: false)
                    done by s-1, current s-1

                    """
            )
            #expect(audit.lastShutDown == "s-1", "the stream's unit of work was shut down after its body")
            #expect(audit.built == audit.shutDown)
            #expect(audit.repeatedShutdowns == 0)
        }
    }

    @Test("A missing object answers 500 with Contextual's message, and the server goes on serving")
    func missingObject() async throws {
        let (_, application) = try await makeApplication()
        try await application.test(.router) { client in
            let response = try await client.execute(uri: "/missing", method: .get)
            #expect(response.status == .internalServerError)
            #expect(response.headers[.contextualError] == "missingObject")
            let message = String(buffer: response.body)
            #expect(message.contains("ReportBuilder"), "the body names the missing type: \(message)")
            #expect(message.hasPrefix("Contextual: "))
            let next = try await client.execute(uri: "/hello", method: .get)
            #expect(next.status == .ok)
        }
    }

    @Test("The request ID reaches ServiceContext, where tracers and log handlers read it")
    func serviceContext() async throws {
        let (_, application) = try await makeApplication()
        try await application.test(.router) { client in
            let response = try await client.execute(uri: "/trace", method: .get, headers: [.requestID: "t-7"])
            #expect(String(buffer: response.body) == "t-7")
        }
    }

    @Test("A live server on 127.0.0.1 serves, stops gracefully, and then the app context is shut down")
    func lifecycle() async throws {
        let audit = ScopeAudit()
        let (app, application) = try await makeApplication(audit: audit)
        try await application.test(.live) { client in
            let response = try await client.execute(uri: "/hello", method: .get, headers: [.requestID: "live-1"])
            #expect(String(buffer: response.body) == "hello live-1 live-1")
            #expect(!app.isEnded, "the app context lives while the server serves")
        }
        #expect(app.isEnded, "AppContextService shut the app context down after the server stopped")
        #expect(audit.built == audit.shutDown)
        #expect(throws: ContextError.self) { try app.require(UnitOfWork.self) }
    }

    @Test("The plain Hummingbird variant answers the same")
    func plainVariant() async throws {
        let store = try await TodoStore.open(path: nil)
        let audit = ScopeAudit()
        let application = Application(router: makePlainRouter(config: ServerConfig(), store: store, audit: audit))
        try await application.test(.router) { client in
            let response = try await client.execute(uri: "/hello", method: .get, headers: [.requestID: "p-1"])
            #expect(String(buffer: response.body) == "hello p-1 p-1")
            #expect(audit.lastShutDown == "p-1")
            #expect(audit.built == audit.shutDown)
        }
        try await store.shutdown()
    }
}

@Suite("swift-log and ServiceContext read the current context")
struct BridgeTests {
    @Test("The metadata provider adds the current request's ID, and nothing outside a request")
    func metadataProvider() {
        let request = makeAppContext(config: ServerConfig()).child(\.requestID, "m-1", name: "request")
        let inside = request.run { Logger.MetadataProvider.contextual.get() }
        #expect(inside["request.id"] == .string("m-1"))
        #expect(Logger.MetadataProvider.contextual.get().isEmpty)
    }

    @Test("The bridge carries the request ID into a ServiceContext, and back into a new scope")
    func roundTrip() async throws {
        let app = makeAppContext(config: ServerConfig())
        let request = app.child(\.requestID, "b-1", name: "request")
        let serviceContext = ServiceContextBridge.server.serviceContext(for: request, base: .topLevel)
        #expect(serviceContext[RequestIDServiceKey.self] == "b-1")
        let job = app.scope(name: "job") { ServiceContextBridge.server.importValues(from: serviceContext, into: &$0) }
        #expect(job[\.requestID] == "b-1")
        let untouched = app.scope(name: "job") { ServiceContextBridge.server.importValues(from: .topLevel, into: &$0) }
        #expect(untouched[\.requestID] == "none")
        try await job.shutdown()
        try await untouched.shutdown()
    }
}
