// The server: `swift run todo-server [port] [database path]`; stops gracefully on SIGTERM or SIGINT,
// shutting the app context down (closing the database) after the HTTP server has stopped.
// `TODO_REVEAL_ERRORS=1` sends a failed request's full ContextError message to the client (development
// only: it names the wiring). `TODO_CONFIG_FILE=config.json` reads the greeting and the title limit from a
// JSON file (`{"greeting": "hello", "todos": {"maxTitleLength": 200}}`), checked every 5 seconds and
// applied whole when it changes; `GREETING` and `TODOS_MAXTITLELENGTH` override it.

import Foundation
import Logging
import TodoServer

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
let (_, application) = try await buildApplication(config: config, configuration: source, port: port, logger: logger)
try await application.runService()

extension Optional {
    /// The wrapped value transformed by the asynchronous `transform`, or nil.
    func asyncMap<Result>(_ transform: (Wrapped) async throws -> Result) async rethrows -> Result? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
