// The server: `swift run todo-server [port] [database path]`; stops gracefully on SIGTERM or SIGINT,
// shutting the app context down (closing the database) after the HTTP server has stopped.
// `TODO_REVEAL_ERRORS=1` sends a failed request's full ContextError message to the client (development
// only: it names the wiring). `TODO_CONFIG_FILE=config.json` reads the greeting and the title limit from a
// JSON file (`{"greeting": "hello", "todos": {"maxTitleLength": 200}}`), checked every 5 seconds and
// applied whole when it changes; `GREETING` and `TODOS_MAX_TITLE_LENGTH` override it. `TODO_TRACING=1`
// traces each request (W3C `traceparent` and `baggage`, with the request ID and the tenant);
// `TODO_PEER_PORT=8081` adds `GET /relay`, which calls `GET /whoami` on the server at 127.0.0.1:8081.

import Foundation
import Logging
import TodoServer
import Tracing

LoggingSystem.bootstrap(StreamLogHandler.standardOutput, metadataProvider: .contextual)
let logger = Logger(label: "todo-server", metadataProvider: .contextual)
let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap(Int.init) ?? 8080
let environment = ProcessInfo.processInfo.environment
let config = ServerConfig(
    databasePath: arguments.dropFirst().first ?? "todos.sqlite",
    revealsErrors: environment["TODO_REVEAL_ERRORS"] == "1"
)
let source = try await environment["TODO_CONFIG_FILE"].asyncMap {
    try await ConfigurationSource.file($0, pollInterval: .seconds(5), logger: logger)
}
let tracing = environment["TODO_TRACING"] == "1"
if tracing { InstrumentationSystem.bootstrap(W3CTracer(bridge: .server, logger: logger)) }
let peerPort = environment["TODO_PEER_PORT"].flatMap(Int.init)
let (_, application) = try await buildApplication(
    config: config,
    configuration: source,
    tracing: tracing,
    peerPort: peerPort,
    port: port,
    logger: logger
)
try await application.runService()

extension Optional {
    /// The wrapped value transformed by the asynchronous `transform`, or nil.
    func asyncMap<Result>(_ transform: (Wrapped) async throws -> Result) async rethrows -> Result? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
