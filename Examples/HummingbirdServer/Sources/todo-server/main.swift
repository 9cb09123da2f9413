// The server: `swift run todo-server [port] [database path]`; stops gracefully on SIGTERM or SIGINT,
// shutting the app context down (closing the database) after the HTTP server has stopped.

import Logging
import TodoServer

LoggingSystem.bootstrap(StreamLogHandler.standardOutput, metadataProvider: .contextual)
let arguments = CommandLine.arguments.dropFirst()
let port = arguments.first.flatMap(Int.init) ?? 8080
let config = ServerConfig(databasePath: arguments.dropFirst().first ?? "todos.sqlite")
let (_, application) = try await buildApplication(config: config, port: port)
try await application.runService()
