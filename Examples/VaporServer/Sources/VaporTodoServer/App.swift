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
        application.lifecycle.use(AppContextLifecycle(app: app))
        application.middleware.use(RequestScopeMiddleware(app: app))
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
        try await application.execute()
        try await application.asyncShutdown()
    }
}
