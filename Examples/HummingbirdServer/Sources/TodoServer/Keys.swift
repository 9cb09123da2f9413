// The values a request reads from its context: its ID, the logger and the server's configuration.

import Contextual
import Logging

/// The server's settings, in the app context: set at boot, and kept current from a configuration file
/// (``ConfigurationSource``, ``ConfigurationReloadService``).
///
/// ```swift
/// let app = Context(name: "app") { $0.serverConfig = ServerConfig(databasePath: nil) }
/// ```
public struct ServerConfig: Sendable, Equatable {
    /// The SQLite file; `nil` keeps the database in memory (tests, the load test).
    public var databasePath: String?
    /// What `GET /hello` says.
    public var greeting: String
    /// Whether a failed request's response carries the full ``Contextual/ContextError`` message:
    /// for development only, since it names the wiring's types and contexts. Off, a client gets
    /// ``Contextual/ContextError/publicMessage(requestID:)`` and the log gets the message.
    public var revealsErrors: Bool
    /// The longest title `POST /todos` accepts, in characters.
    public var maxTitleLength: Int

    /// Makes a configuration.
    ///
    /// ```swift
    /// let config = ServerConfig(databasePath: "todos.sqlite", greeting: "hello")
    /// ```
    public init(
        databasePath: String? = nil,
        greeting: String = "hello",
        revealsErrors: Bool = false,
        maxTitleLength: Int = 200
    ) {
        self.databasePath = databasePath
        self.greeting = greeting
        self.revealsErrors = revealsErrors
        self.maxTitleLength = maxTitleLength
    }
}

enum ServerConfigKey: ContextKey {
    static var defaultValue: ServerConfig { ServerConfig() }
}

enum RequestIDKey: ContextKey {
    static var defaultValue: String { "none" }
}

enum TenantKey: ContextKey {
    static var defaultValue: String { "none" }
}

enum CallerKey: ContextKey {
    static var defaultValue: String { "none" }
}

enum LoggerKey: ContextKey {
    static var defaultValue: Logger { Logger(label: "todo-server", metadataProvider: .contextual) }
}

extension ContextValues {
    /// The server's configuration.
    ///
    /// ```swift
    /// let path = Context.current[\.serverConfig].databasePath
    /// ```
    public var serverConfig: ServerConfig {
        get { self[ServerConfigKey.self] }
        set { self[ServerConfigKey.self] = newValue }
    }

    /// The ID of the request being served; `"none"` outside a request.
    ///
    /// ```swift
    /// let id = Context.current[\.requestID]
    /// ```
    public var requestID: String {
        get { self[RequestIDKey.self] }
        set { self[RequestIDKey.self] = newValue }
    }

    /// The logger; by default one whose metadata provider adds the current request's ID to every line.
    ///
    /// ```swift
    /// Context.current[\.logger].info("serving")
    /// ```
    public var logger: Logger {
        get { self[LoggerKey.self] }
        set { self[LoggerKey.self] = newValue }
    }

    /// The tenant a request serves; `"none"` unless a handler chose one, or a calling service sent one in
    /// `baggage`. It crosses to the services the request calls (see ``ServiceContextBridge/server``).
    ///
    /// ```swift
    /// let tenant = Context.current[\.tenant]
    /// ```
    public var tenant: String {
        get { self[TenantKey.self] }
        set { self[TenantKey.self] = newValue }
    }

    /// Who made the request, as authentication found; `"none"` otherwise. It stays in this process:
    /// the services a request calls do not see it.
    ///
    /// ```swift
    /// let caller = Context.current[\.caller]
    /// ```
    public var caller: String {
        get { self[CallerKey.self] }
        set { self[CallerKey.self] = newValue }
    }
}
