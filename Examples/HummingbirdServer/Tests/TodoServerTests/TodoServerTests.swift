// The server's wiring, tested against the server on 127.0.0.1 with the loopback client.

import Contextual
import Foundation
import Hummingbird
import Logging
import LoopbackHTTP
import ServiceContextModule
import Synchronization
import Testing
import TodoServer

/// Serves an app context with an in-memory database, prepared, on an ephemeral port of 127.0.0.1, for
/// `body`, with one keep-alive connection; then stops the server gracefully. Returns the app context.
@discardableResult
func withServer(
    config: ServerConfig = ServerConfig(),
    audit: ScopeAudit = ScopeAudit(),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ body: (inout LoopbackConnection) async throws -> Void
) async throws -> Context {
    try await withServerOnPort(config: config, audit: audit, logger: logger) { app, port in
        try await withLoopbackConnection(port: port) { http in
            #expect(!app.isEnded, "the app context lives while the server serves")
            try await body(&http)
        }
    }
}

/// Serves the app `buildApplication` makes from these arguments on an ephemeral port of 127.0.0.1, for
/// `body`, given the app context and the port; then stops the server gracefully. Returns the app context.
@discardableResult
func withServerOnPort(
    config: ServerConfig = ServerConfig(),
    configuration: ConfigurationSource? = nil,
    reloads: ConfigurationReloads = ConfigurationReloads(),
    tracing: Bool = false,
    peerPort: Int? = nil,
    audit: ScopeAudit = ScopeAudit(),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ body: (Context, Int) async throws -> Void
) async throws -> Context {
    let ports = AsyncStream<Int>.makeStream()
    let (app, application) = try await buildApplication(
        config: config,
        configuration: configuration,
        tracing: tracing,
        peerPort: peerPort,
        reloads: reloads,
        audit: audit,
        port: 0,
        logger: logger,
        onServerRunning: { ports.continuation.yield($0.localAddress?.port ?? 0) }
    )
    try await serveOnLoopback(application, ports: ports.stream, logger: logger) { port in try await body(app, port) }
    return app
}

@Suite("The Hummingbird server wired with Contextual, on 127.0.0.1")
struct TodoServerTests {
    @Test("A handler reads the request's ID with @Injected, and so does its scoped unit of work")
    func requestID() async throws {
        let audit = ScopeAudit()
        try await withServer(audit: audit) { http in
            for id in ["r-1", "r-2"] {
                let response = try await http.get("/hello", requestID: id)
                #expect(response.status == .ok)
                #expect(response.body == "hello \(id) \(id)")
                #expect(response.requestID == id)
                #expect(audit.lastShutDown == id, "the unit of work of \(id) was shut down after its response")
            }
        }
        #expect(audit.built == audit.shutDown && audit.repeatedShutdowns == 0)
    }

    @Test("A request without an ID gets a new one, different for each request")
    func generatedIDs() async throws {
        try await withServer { http in
            let first = try await http.get("/hello").requestID
            let second = try await http.get("/hello").requestID
            #expect(first != nil)
            #expect(first != second)
        }
    }

    @Test("A streamed body runs in the request's scope: its unit of work is alive, then shut down once")
    func streamedBody() async throws {
        let audit = ScopeAudit()
        try await withServer(audit: audit) { http in
            for title in ["write", "ship"] {
                let added = try await http.post("/todos", requestID: "add-\(title)", body: title)
                #expect(added.status == .ok)
                #expect(added.body.contains("\"title\":\"\(title)\""), "the todo, as JSON: \(added.body)")
            }
            let response = try await http.get("/todos/stream", requestID: "s-1")
            #expect(
                response.body == """
                    write (read by s-1, shut down: false)
                    ship (read by s-1, shut down: false)
                    done by s-1, current s-1

                    """
            )
        }
        // The scope ends after the body's last write, which the client may read first: check once the
        // server has stopped, which waits for its requests to finish.
        #expect(audit.lastShutDown == "s-1", "the stream's unit of work was shut down after its body")
        #expect(audit.repeatedShutdowns == 0)
        #expect(audit.built == audit.shutDown)
    }

    @Test("A missing object answers 500 naming nothing of the wiring, logs the message, and serving goes on")
    func missingObject() async throws {
        let log = RecordingLog()
        try await withServer(logger: log.logger) { http in
            let response = try await http.get("/missing", requestID: "m-1")
            #expect(response.status == .internalServerError)
            #expect(response.requestID == "m-1")
            #expect(response.errorMessage == "The server could not complete the request (request ID: m-1).")
            #expect(!response.body.contains("ReportBuilder") && !response.body.contains("app"))
            let next = try await http.get("/hello")
            #expect(next.status == .ok)
        }
        let logged = log.lines.first { $0.contains("request m-1 failed") }
        #expect(logged?.contains("ReportBuilder") == true, "the log has the full message: \(log.lines)")
    }

    @Test("A server that reveals errors (development) answers with Contextual's full message")
    func revealedErrors() async throws {
        try await withServer(config: ServerConfig(revealsErrors: true)) { http in
            let response = try await http.get("/missing")
            #expect(response.status == .internalServerError)
            #expect(
                response.errorMessage?.hasPrefix("Contextual: no object of type 'TodoServer.ReportBuilder'") == true
            )
        }
    }

    @Test("A handler that succeeded whose commit fails answers 500, not 200, and the failure is logged")
    func failedCommit() async throws {
        let log = RecordingLog()
        let audit = ScopeAudit()
        try await withServer(audit: audit, logger: log.logger) { http in
            let response = try await http.get("/failing-commit", requestID: "c-1")
            #expect(response.status == .internalServerError)
            #expect(response.requestID == "c-1")
            #expect(response.errorMessage == "The server could not complete the request (request ID: c-1).")
            #expect(audit.lastShutDown == "c-1")
            #expect(try await http.get("/hello").status == .ok)
        }
        #expect(log.lines.contains { $0.contains("request c-1") && $0.contains("the commit of request c-1 failed") })
    }

    @Test("A commit that fails after a streamed body was sent is logged with the request's ID")
    func failedCommitAfterStream() async throws {
        let log = RecordingLog()
        let audit = ScopeAudit()
        try await withServer(audit: audit, logger: log.logger) { http in
            let response = try await http.get("/failing-commit/stream", requestID: "fs-1")
            #expect(response.status == .ok)
            #expect(response.requestID == "fs-1")
            #expect(response.body == "done by fs-1, current fs-1\n")
        }
        #expect(audit.lastShutDown == "fs-1")
        #expect(
            log.lines.contains { $0.contains("'request fs-1'") && $0.contains("the commit of request fs-1 failed") }
        )
    }

    @Test("A body of known length written by a closure runs in the request's scope, before it ends")
    func sizedClosureBody() async throws {
        let audit = ScopeAudit()
        try await withServer(audit: audit) { http in
            let response = try await http.get("/sized", requestID: "z-1")
            #expect(response.status == .ok)
            #expect(response.body == "sized by z-1, unit of work alive")
        }
        #expect(audit.lastShutDown == "z-1")
        #expect(audit.built == audit.shutDown)
    }

    @Test("An empty body stays empty, and the request's scope ends")
    func noContent() async throws {
        let audit = ScopeAudit()
        try await withServer(audit: audit) { http in
            let response = try await http.get("/no-content", requestID: "nc-1")
            #expect(response.status == .noContent)
            #expect(response.body.isEmpty)
            #expect(response.requestID == "nc-1")
            #expect(try await http.get("/hello").status == .ok)
        }
        #expect(audit.built == audit.shutDown)
        #expect(audit.repeatedShutdowns == 0)
    }

    @Test("Another error than a ContextError is Hummingbird's to answer, and the request's scope ends")
    func otherError() async throws {
        let audit = ScopeAudit()
        try await withServer(audit: audit) { http in
            let response = try await http.get("/bad-request", requestID: "br-1")
            #expect(response.status == .badRequest)
            #expect(response.errorMessage == "bad request")
            #expect(try await http.get("/hello").status == .ok)
        }
        #expect(audit.built == audit.shutDown)
        #expect(audit.repeatedShutdowns == 0)
    }

    @Test("A request ID the log can't carry (spaces, over 128 characters) is replaced by a new one")
    func unusableRequestID() async throws {
        try await withServer { http in
            for id in ["a b", String(repeating: "x", count: 129)] {
                let response = try await http.get("/hello", requestID: id)
                #expect(response.status == .ok)
                let replaced = try #require(response.requestID)
                #expect(replaced != id && !replaced.contains(" ") && replaced.count < 40)
                #expect(response.body == "hello \(replaced) \(replaced)")
            }
        }
    }

    @Test("The request ID reaches ServiceContext, where tracers and log handlers read it")
    func serviceContext() async throws {
        try await withServer { http in
            let response = try await http.get("/trace", requestID: "t-7")
            #expect(response.body == "t-7")
        }
    }

    @Test("After a graceful stop, AppContextService has shut the app context down, closing the database")
    func lifecycle() async throws {
        let audit = ScopeAudit()
        let app = try await withServer(audit: audit) { http in
            let response = try await http.get("/hello", requestID: "live-1")
            #expect(response.body == "hello live-1 live-1")
        }
        #expect(app.isEnded, "AppContextService shut the app context down after the server stopped")
        #expect(audit.built == audit.shutDown)
        #expect(throws: ContextError.self) { try app.require(UnitOfWork.self) }
    }

    @Test("The plain Hummingbird variant answers the same")
    func plainVariant() async throws {
        let store = try await TodoStore.open(path: nil)
        let audit = ScopeAudit()
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let ports = AsyncStream<Int>.makeStream()
        let application = Application(
            router: makePlainRouter(config: ServerConfig(), store: store, audit: audit),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { ports.continuation.yield($0.localAddress?.port ?? 0) },
            logger: logger
        )
        try await serveOnLoopback(application, ports: ports.stream, logger: logger) { port in
            try await withLoopbackConnection(port: port) { http in
                let response = try await http.get("/hello", requestID: "p-1")
                #expect(response.body == "hello p-1 p-1")
                #expect(audit.lastShutDown == "p-1")
            }
        }
        #expect(audit.built == audit.shutDown)
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

@Suite("The server's wiring, measured: boot report and resolution counters")
struct WiringMeasurementTests {
    @Test("A request builds its unit of work and nothing else")
    func requestPathBuilds() async throws {
        let app = makeAppContext(config: ServerConfig(databasePath: nil))
        try await app.prepare()  // at boot: the store is built here, not on a request
        let counters = app.countResolutions()

        let request = app.scope(name: "request") { $0.requestID = "r-1" }
        _ = try request.require(UnitOfWork.self)
        _ = try request.require(UnitOfWork.self)
        try await request.shutdown()

        #expect(counters.count(of: UnitOfWork.self).built == 1)
        #expect(counters.count(of: UnitOfWork.self).resolved == 2)
        #expect(counters.totalBuilt == 1)  // no singleton built on the request path
        try await app.shutdown()
    }

    @Test("The boot report lists the store and the unit of work, and the edge between them")
    func bootReport() async throws {
        let app = makeAppContext(config: ServerConfig(databasePath: nil))
        let report = await app.bootReport(deadline: .seconds(30))
        #expect(report.isValid)
        #expect(report.provider(named: "UnitOfWork")?.dependencies == ["TodoStore (singleton)"])
        #expect(report.totals.longestPath == 2)
        try await app.shutdown()
    }
}

// MARK: - A log to read

/// A swift-log handler that keeps every line, for tests that check what the server logged.
final class RecordingLog: Sendable {
    private let recorded = Mutex<[String]>([])

    /// What was logged so far, one message (with its metadata) per line.
    var lines: [String] { recorded.withLock { $0 } }

    /// A logger whose lines this log keeps.
    var logger: Logger { Logger(label: "test") { _ in Handler(log: self) } }

    fileprivate func append(_ line: String) { recorded.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let log: RecordingLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.append("\(event.level) \(event.message)")
        }
    }
}

extension LoopbackResponse {
    /// The message of an error response: Hummingbird's `{"error":{"message":…}}`.
    var errorMessage: String? {
        struct Body: Decodable {
            struct Error: Decodable { let message: String }
            let error: Error
        }
        return try? JSONDecoder().decode(Body.self, from: Data(body.utf8)).error.message
    }
}
