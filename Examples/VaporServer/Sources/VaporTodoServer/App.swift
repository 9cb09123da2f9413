// The Vapor recipe's app: the same routes as the Hummingbird example's `/hello` and `/stream`.

import Contextual
import Vapor

final class UnitOfWork: ScopeShutdown {
    let requestID: String
    init(requestID: String) { self.requestID = requestID }
    func shutdown() async throws {}  // commit or roll back
}

struct RequestHandler {
    @Injected(\.requestID) var requestID
    @Injected(UnitOfWork.self) var work

    func hello() -> String { "hello \(requestID) \(work.requestID)" }
}

@main
struct VaporTodoServer {
    static func main() async throws {
        let app = Contextual.Context(name: "app") {
            $0.provide(UnitOfWork.self, lifetime: .scoped) { request in UnitOfWork(requestID: request[\.requestID]) }
        }
        try await app.prepare()  // reports every wiring problem before serving

        let application = try await Application.make(.detect())
        // Development only: send a ContextError's full message, which names the wiring, to the client.
        let revealErrors = Environment.get("CONTEXTUAL_REVEAL_ERRORS") == "1"
        configure(application, app: app, revealErrors: revealErrors)
        try await application.execute()
        try await application.asyncShutdown()
    }
}

/// Serves `app`'s requests on `application`: its lifecycle, the request scope and the routes. The tests
/// call it with an application of their own.
///
/// ```swift
/// configure(application, app: app, revealErrors: false)
/// ```
func configure(_ application: Application, app: Contextual.Context, revealErrors: Bool) {
    application.lifecycle.use(AppContextLifecycle(app: app))
    application.middleware.use(RequestScopeMiddleware(app: app, revealErrors: revealErrors))
    application.get("hello") { request in request.scope.run { RequestHandler() }.hello() }
    application.get("stream") { request -> Response in
        let handler = request.scope.run { RequestHandler() }
        return Response(
            status: .ok,
            body: request.streamInScope { writer in
                let line = "\(handler.work.requestID), current \(Contextual.Context.current[\.requestID])\n"
                try await writer.writeBuffer(ByteBuffer(string: line))
                try await writer.write(.end)
            }
        )
    }
}
