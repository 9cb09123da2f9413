// The server: `swift run todo-server [port] [database path]`; stops gracefully on SIGTERM or SIGINT,
// shutting the app context down (closing the database) after the HTTP server has stopped.
// `TODO_REVEAL_ERRORS=1` sends a failed request's full ContextError message to the client (development
// only: it names the wiring).

import Foundation
import Logging
import TodoServer

LoggingSystem.bootstrap(StreamLogHandler.standardOutput, metadataProvider: .contextual)
let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap(Int.init) ?? 8080
let config = ServerConfig(
    databasePath: arguments.dropFirst().first ?? "todos.sqlite",
    revealsErrors: ProcessInfo.processInfo.environment["TODO_REVEAL_ERRORS"] == "1"
)
let (_, application) = try await buildApplication(config: config, port: port)
try await application.runService()
