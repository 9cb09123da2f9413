// The Vapor recipe's request scope and error answers, tested against the server on 127.0.0.1.

import Contextual
import Synchronization
import Testing
import Vapor
import VaporTesting

@testable import VaporTodoServer

/// An object no context provides.
struct AuditLog: Sendable {}

/// A scoped unit of work whose commit fails, as a database's would.
final class FailingCommit: ScopeShutdown {
    struct CommitFailed: Error {}
    func shutdown() async throws { throw CommitFailed() }
}

/// The messages logged at error level, in order.
final class ErrorLog: Sendable {
    private let messages = Mutex<[String]>([])

    var all: [String] { messages.withLock { $0 } }

    func append(_ message: String) { messages.withLock { $0.append(message) } }

    /// Waits up to 30 seconds for a message that contains `text`: a streamed body's scope ends after the
    /// client has read the body.
    func waitFor(_ text: String) async throws -> String? {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let message = all.first(where: { $0.contains(text) }) { return message }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

/// A log handler that keeps errors in an `ErrorLog`.
struct ErrorLogHandler: LogHandler {
    let errors: ErrorLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .error

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Records an error's message, followed by ` [request-id: …]` when the logger carries one.
    func log(event: LogEvent) {
        guard event.level >= .error else { return }
        let id = (event.metadata?["request-id"] ?? metadata["request-id"]).map { " [request-id: \($0)]" } ?? ""
        errors.append("\(event.message)\(id)")
    }
}

/// The recipe's app context: a scoped unit of work per request, plus `FailingCommit`.
func makeAppContext() -> Contextual.Context {
    Contextual.Context(name: "app") {
        $0.provide(UnitOfWork.self, lifetime: .scoped) { request in UnitOfWork(requestID: request[\.requestID]) }
        $0.provide(FailingCommit.self, lifetime: .scoped) { _ in FailingCommit() }
    }
}

/// The routes the tests add to the recipe's: `/missing` reads `AuditLog`, which no context provides;
/// `/commit` and `/commit-stream` use `FailingCommit`, the latter with a streamed body.
func addTestRoutes(to application: Application) {
    application.get("missing") { request -> String in
        _ = try request.scope.require(AuditLog.self)
        return "found"
    }
    application.get("commit") { request -> String in
        _ = try request.scope.require(FailingCommit.self)
        return "committed"
    }
    application.get("commit-stream") { request -> Response in
        _ = try request.scope.require(FailingCommit.self)
        return Response(body: request.streamInScope { try await $0.write(.end) })
    }
}

/// Serves the recipe's application, wired to a new app context, with the test routes, on an ephemeral
/// port of 127.0.0.1, its errors logged to `log`; sends one request and returns its response. The app
/// context is shut down with the application.
func serve(
    _ path: String,
    requestID: String,
    revealErrors: Bool = false,
    log: ErrorLog = ErrorLog()
) async throws -> TestingHTTPResponse {
    let app = makeAppContext()
    let setUp: (Application) async throws -> Void = { application in
        application.logger = Logger(label: "test") { _ in ErrorLogHandler(errors: log) }
        configure(application, app: app, revealErrors: revealErrors)
        addTestRoutes(to: application)
    }
    let response = try await withApp(configure: setUp) { application in
        try await application.testing(method: .running(hostname: "127.0.0.1", port: 0))
            .sendRequest(.GET, path, headers: ["x-request-id": requestID])
    }
    #expect(app.isEnded, "the application's shutdown ends the app context")
    return response
}

@Suite("The Vapor recipe, on 127.0.0.1")
struct VaporTodoServerTests {
    @Test("A request gets a scope of its own: a handler reads its ID there, and the ID comes back")
    func requestScope() async throws {
        let response = try await serve("/hello", requestID: "r-1")
        #expect(response.status == .ok)
        #expect(response.body.string == "hello r-1 r-1")
        #expect(response.headers.first(name: "x-request-id") == "r-1")
    }

    @Test("A missing object answers 500 with the public message and the request ID, naming no type")
    func missingObject() async throws {
        let log = ErrorLog()
        let response = try await serve("/missing", requestID: "r-2", log: log)
        #expect(response.status == .internalServerError)
        #expect(response.headers.first(name: "x-request-id") == "r-2")
        let body = response.body.string
        #expect(body.contains("The server could not complete the request (request ID: r-2)."))
        for wiring in ["AuditLog", "app", "Contextual", "missing"] {
            #expect(!body.contains(wiring), "the body names \(wiring): \(body)")
        }
        let logged = try #require(log.all.first { $0.contains("request r-2 failed") })
        #expect(logged.contains("AuditLog"), "the log has the full message: \(logged)")
    }

    @Test("With revealErrors on, the body holds the full message, for development")
    func revealedErrors() async throws {
        let response = try await serve("/missing", requestID: "r-3", revealErrors: true)
        #expect(response.status == .internalServerError)
        #expect(response.body.string.contains("AuditLog"))
    }

    @Test("A scope whose shutdown fails (a failed commit) answers 500, not the handler's 200")
    func failedCommit() async throws {
        let log = ErrorLog()
        let response = try await serve("/commit", requestID: "r-4", log: log)
        #expect(response.status == .internalServerError)
        #expect(response.headers.first(name: "x-request-id") == "r-4")
        #expect(response.body.string.contains("The server could not complete the request (request ID: r-4)."))
        #expect(!response.body.string.contains("committed"))
        let logged = try #require(log.all.first { $0.contains("request r-4 failed") })
        #expect(logged.contains("FailingCommit"), "the log has the full message: \(logged)")
    }

    @Test("A request ID the log can't carry (a space) is replaced by a new one")
    func unusableRequestID() async throws {
        let response = try await serve("/hello", requestID: "a b")
        #expect(response.status == .ok)
        let replaced = try #require(response.headers.first(name: "x-request-id"))
        #expect(replaced != "a b" && !replaced.contains(" "))
        #expect(response.body.string == "hello \(replaced) \(replaced)")
    }

    @Test("An unusable client request ID is replaced in the response and in the log lines after the middleware")
    func unusableRequestIDInLog() async throws {
        let log = ErrorLog()
        let response = try await serve("/missing", requestID: "a b", log: log)
        #expect(response.status == .internalServerError)
        let replaced = try #require(response.headers.first(name: "x-request-id"))
        #expect(replaced != "a b")
        let logged = try #require(log.all.first { $0.contains("failed") })
        #expect(logged.contains("[request-id: \(replaced)]"), "\(logged)")
        #expect(!logged.contains("a b"))
    }

    @Test("A streamed body runs in the request's scope")
    func streamedBody() async throws {
        let response = try await serve("/stream", requestID: "r-5")
        #expect(response.status == .ok)
        #expect(response.body.string == "r-5, current r-5\n")
        #expect(response.headers.first(name: "x-request-id") == "r-5")
    }

    @Test("A failed shutdown after a streamed body, sent with 200, is logged with the request ID")
    func failedCommitAfterStream() async throws {
        let log = ErrorLog()
        let response = try await serve("/commit-stream", requestID: "r-6", log: log)
        #expect(response.status == .ok)
        let logged = try #require(try await log.waitFor("request r-6"))
        #expect(logged.contains("FailingCommit"), "the log has the full message: \(logged)")
    }
}
