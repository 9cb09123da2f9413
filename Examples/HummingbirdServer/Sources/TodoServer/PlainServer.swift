// The same endpoints in plain Hummingbird, without Contextual, for comparison (the load test measures
// both): every handler gets what it needs passed by hand, and ends its unit of work itself.

import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// The plain variant's dependencies, passed by hand to every handler.
struct PlainDependencies: Sendable {
    let config: ServerConfig
    let store: TodoStore
    let audit: ScopeAudit
    let logger: Logger
    let ids = PlainRequestIDs()
}

/// The routes of ``makeRouter(app:)``, without Contextual: `GET /hello`, `POST /todos`, `GET /todos` and
/// `GET /todos/stream`.
///
/// ```swift
/// let router = makePlainRouter(config: config, store: try await TodoStore.open(path: nil), audit: ScopeAudit())
/// ```
public func makePlainRouter(
    config: ServerConfig,
    store: TodoStore,
    audit: ScopeAudit,
    logger: Logger = Logger(label: "plain-todo-server")
) -> Router<BasicRequestContext> {
    let dependencies = PlainDependencies(config: config, store: store, audit: audit, logger: logger)
    let router = Router()
    router.get("/hello") { request, _ in
        let requestID = request.headers[.requestID] ?? dependencies.ids.next()
        let work = UnitOfWork(requestID: requestID, store: dependencies.store, audit: dependencies.audit)
        let text = "\(dependencies.config.greeting) \(requestID) \(work.requestID)"
        try await work.shutdown()
        return Response(
            status: .ok,
            headers: [.requestID: requestID, .contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text))
        )
    }
    router.post("/todos") { request, _ in
        let requestID = request.headers[.requestID] ?? dependencies.ids.next()
        let title = String(buffer: try await request.body.collect(upTo: 4096))
        let work = UnitOfWork(requestID: requestID, store: dependencies.store, audit: dependencies.audit)
        dependencies.logger.info("adding a todo", metadata: ["request.id": .string(requestID)])
        let todo: Todo
        do {
            todo = try await work.add(title: title)
        } catch {
            try await work.shutdown()
            throw error
        }
        try await work.shutdown()
        return todo
    }
    router.get("/todos") { _, _ in try await dependencies.store.all() }
    router.get("/todos/stream") { request, _ in
        let requestID = request.headers[.requestID] ?? dependencies.ids.next()
        let work = UnitOfWork(requestID: requestID, store: dependencies.store, audit: dependencies.audit)
        let todos = try await dependencies.store.all()
        return Response(
            status: .ok,
            body: ResponseBody { writer in
                for todo in todos {
                    await Task.yield()
                    let line = "\(todo.title) (read by \(work.requestID), shut down: \(work.isShutDown))\n"
                    try await writer.write(ByteBuffer(string: line))
                }
                try await writer.write(ByteBuffer(string: "done by \(requestID)\n"))
                try await writer.finish(nil)
                try await work.shutdown()  // and by hand on every path that does not reach here
            }
        )
    }
    return router
}

/// Request IDs for requests that bring none, in the plain variant: a counter.
final class PlainRequestIDs: Sendable {
    private let counter = Atomic<Int>(0)

    func next() -> String { "plain-\(counter.add(1, ordering: .relaxed).newValue)" }
}
