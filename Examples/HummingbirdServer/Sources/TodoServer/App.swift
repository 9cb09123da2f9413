// The app: its context (providers and lifetimes, checked before serving), its routes and handlers, and the
// Hummingbird application that serves them.

import Contextual
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceContextModule
import ServiceLifecycle

/// The app context: the configuration, the audit, the database (a singleton with an async factory) and a
/// unit of work per request (scoped). Check it with `try await app.prepare()` before serving.
///
/// ```swift
/// let app = makeAppContext(config: ServerConfig(databasePath: nil), audit: ScopeAudit())
/// try await app.prepare()  // opens the database; reports every wiring problem at once
/// ```
public func makeAppContext(
    config: ServerConfig,
    audit: ScopeAudit = ScopeAudit(),
    logger: Logger = Logger(label: "todo-server", metadataProvider: .contextual)
) -> Context {
    Context(name: "app") {
        $0.serverConfig = config
        $0.logger = logger
        // A scope's shutdown that fails once its response is sent (after a stream) goes to the log.
        $0.shutdownFailureHandler = { error in logger.error("\(error.message)") }
        $0.provide(audit)
        $0.provide(TodoStore.self, lifetime: .singleton) { app in
            try await TodoStore.open(path: app[\.serverConfig].databasePath)
        }
        $0.provide(UnitOfWork.self, lifetime: .scoped) { request in
            UnitOfWork(
                requestID: request[\.requestID],
                store: try request.require(TodoStore.self),
                audit: try request.require(ScopeAudit.self)
            )
        }
    }
}

/// The bridge the server uses: the request ID travels into `ServiceContext`; the request ID and the
/// tenant cross to the services a request calls. Nothing else leaves the process (the caller does not).
///
/// ```swift
/// RequestScopeMiddleware<BasicRequestContext>(base: RequestBase(app: app), bridge: .server)
/// ```
extension ServiceContextBridge {
    public static let server = ServiceContextBridge()
        .carrying(\.requestID, as: RequestIDServiceKey.self)
        .crossing(\.requestID, as: ServiceContextBridge.requestIDName)
        .crossing(\.tenant, as: "tenant")
}

/// What a request reads, by `@Injected`: made per request, inside its scope.
struct RequestHandler {
    @Injected(\.requestID) var requestID
    @Injected(\.logger) var logger
    @Injected(\.serverConfig) var config
    @Injected(UnitOfWork.self) var work

    /// `GET /hello`: the request's ID, as the handler and its unit of work see it.
    func hello() -> String {
        "\(config.greeting) \(requestID) \(work.requestID)"
    }

    /// `GET /failing-commit`: a handler that succeeds, whose unit of work fails to commit.
    func failCommit() -> String {
        work.failCommit()
        return "done"
    }

    /// `POST /todos`: adds an item through the request's unit of work.
    func add(title: String) async throws -> Todo {
        guard title.count <= config.maxTitleLength else {
            throw HTTPError(.badRequest, message: "A title has at most \(config.maxTitleLength) characters.")
        }
        logger.info("adding a todo")
        return try await work.add(title: title)
    }

    /// `GET /todos/stream`: every item, one line each, written after the middleware returned.
    func stream(_ todos: [Todo]) -> ResponseBody {
        let work = self.work
        let requestID = self.requestID
        return ResponseBody { writer in
            for todo in todos {
                await Task.yield()
                // Still this request's unit of work, not shut down yet: the scope covers the body.
                let line = "\(todo.title) (read by \(work.requestID), shut down: \(work.isShutDown))\n"
                try await writer.write(ByteBuffer(string: line))
            }
            let current = Context.current[\.requestID]
            try await writer.write(ByteBuffer(string: "done by \(requestID), current \(current)\n"))
            try await writer.finish(nil)
        }
    }
}

/// The routes, served in a scope per request below `app`.
///
/// ```swift
/// let router = makeRouter(app: app)
/// let application = Application(router: router)
/// ```
public func makeRouter(app: Context, tracing: Bool = false, peerPort: Int? = nil) -> Router<BasicRequestContext> {
    let router = Router()
    let revealsErrors = app[\.serverConfig].revealsErrors
    if tracing { router.add(middleware: TracingMiddleware()) }  // a span per request, continuing the caller's trace
    let base = RequestBase(app: app)  // requests keep the settings they started with, whatever a reload does
    router.add(middleware: RequestScopeMiddleware(base: base, bridge: .server, revealsErrors: revealsErrors))
    router.get("/hello") { _, _ in RequestHandler().hello() }
    router.post("/todos") { request, _ in
        let title = String(buffer: try await request.body.collect(upTo: 4096))
        return try await RequestHandler().add(title: title)
    }
    router.get("/todos") { _, _ in
        try await Context.current.require(TodoStore.self).all()
    }
    router.get("/todos/stream") { _, _ in
        let todos = try await Context.current.require(TodoStore.self).all()
        return Response(status: .ok, body: RequestHandler().stream(todos))
    }
    router.get("/greeting/twice") { request, _ in
        // Reads the greeting, waits until the app's changes (at most `wait` ms, at most 60 s), reads it
        // again: a request keeps the configuration it started with. The unit of work says it started. A
        // demonstration route: a client can hold a request open for 60 s.
        let handler = RequestHandler()
        let first = handler.config.greeting
        _ = handler.work
        let wait =
            ContinuousClock.now + .milliseconds(min(request.uri.queryParameters.get("wait", as: Int.self) ?? 0, 60_000))
        while app[\.serverConfig].greeting == first, ContinuousClock.now < wait {
            try await Task.sleep(for: .milliseconds(5))
        }
        return "\(first) \(RequestHandler().config.greeting) \(app[\.serverConfig].greeting)"
    }
    if let peerPort { addRelay(to: router, peerPort: peerPort) }
    router.get("/whoami") { _, _ in
        // What this request's scope and span hold: what a caller's relay sent, and nothing more.
        let values = Context.current
        let span = ServiceContext.current ?? .topLevel
        return "request=\(values[\.requestID]) tenant=\(values[\.tenant]) caller=\(values[\.caller]) "
            + "trace=\(span.traceID ?? "none") parent=\(span.parentSpanID ?? "none")"
    }
    router.get("/trace") { _, _ in
        // What a tracer or a log handler sees in ServiceContext.
        ServiceContext.current?[RequestIDServiceKey.self] ?? "none"
    }
    router.get("/failing-commit") { _, _ in
        // The handler succeeds; the commit, when the scope ends, fails: the response is a 500, not a 200.
        RequestHandler().failCommit()
    }
    router.get("/failing-commit/stream") { _, _ in
        // The commit fails after a streamed body was sent: the failure goes to the log, not the client.
        let handler = RequestHandler()
        _ = handler.failCommit()
        return Response(status: .ok, body: handler.stream([]))
    }
    router.get("/sized") { _, _ in
        // A body of known length written by a closure: it still reads the request's unit of work.
        let work = RequestHandler().work
        let text = "sized by \(work.requestID), unit of work "
        return Response(
            status: .ok,
            body: ResponseBody(contentLength: text.utf8.count + 5) { writer in
                await Task.yield()
                try await writer.write(ByteBuffer(string: text + (work.isShutDown ? "ended" : "alive")))
                try await writer.finish(nil)
            }
        )
    }
    router.get("/no-content") { _, _ in
        // An empty body, with a unit of work: the scope ends, the body stays empty.
        _ = RequestHandler().work
        return Response(status: .noContent)
    }
    router.get("/bad-request") { _, _ -> String in
        // Another error than a ContextError, after the unit of work was built: Hummingbird answers it.
        _ = RequestHandler().work
        throw HTTPError(.badRequest, message: "bad request")
    }
    router.get("/missing") { _, _ in
        // Nothing provides ReportBuilder: `require` throws; the middleware answers 500, logs the message.
        try Context.current.require(ReportBuilder.self).title
    }
    return router
}

/// Provided by nobody: `GET /missing` shows what a request-level wiring failure answers.
final class ReportBuilder: Sendable {
    let title = "report"
}

/// Shuts the app context down (closing the database) once the HTTP server has stopped.
///
/// Put it before the application in a `ServiceGroup`: on graceful shutdown the group stops its services
/// in reverse order, so the server drains its requests first, then this service ends the app context.
///
/// ```swift
/// let group = ServiceGroup(services: [AppContextService(app), application], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
public struct AppContextService: Service {
    let app: Context

    /// Makes the service for `app`.
    ///
    /// ```swift
    /// let service = AppContextService(app)
    /// ```
    public init(_ app: Context) { self.app = app }

    /// Waits for graceful shutdown (or cancellation), then shuts the app context down.
    ///
    /// ```swift
    /// try await AppContextService(app).run()  // returns after the group shuts down
    /// ```
    public func run() async throws {
        try? await gracefulShutdown()
        try await app.shutdown()
    }
}

/// The server: the app context, checked, and a Hummingbird application on `host`:`port`, with the app
/// context's lifecycle service.
///
/// ```swift
/// let (app, application) = try await buildApplication(config: ServerConfig(), host: "127.0.0.1", port: 8080)
/// try await application.runService()
/// ```
public func buildApplication(
    config: ServerConfig,
    configuration: ConfigurationSource? = nil,
    tracing: Bool = false,
    peerPort: Int? = nil,
    reloads: ConfigurationReloads = ConfigurationReloads(),
    audit: ScopeAudit = ScopeAudit(),
    host: String = "127.0.0.1",
    port: Int = 8080,
    logger: Logger = Logger(label: "todo-server", metadataProvider: .contextual),
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> (app: Context, application: some ApplicationProtocol) {
    let app = makeAppContext(config: config, audit: audit, logger: logger)
    var services: [any Service] = [AppContextService(app)]
    if let configuration {
        // The file's settings at boot: a missing or invalid one stops the start, naming the key.
        try app.update(from: configuration.reader.snapshot(), with: ServerConfig.mapping)
        reloads.recordApplied()
        let reader = configuration.reader
        let reloading = ConfigurationReloadService(app: app, reader: reader, reloads: reloads, logger: logger)
        // After the app context's service: a group stops its services last first, so the reloads stop
        // before the app context is shut down.
        services += configuration.services + [reloading]
    }
    try await app.prepare()  // opens the database, reports every wiring problem at once
    let application = Application(
        router: makeRouter(app: app, tracing: tracing, peerPort: peerPort),
        configuration: .init(address: .hostname(host, port: port), serverName: "todo-server"),
        services: services,
        onServerRunning: onServerRunning,
        logger: logger
    )
    return (app, application)
}
