import Contextual
import Synchronization

// MARK: - Configuration and logging

/// The application's configuration, read by every service through `\.config`.
struct AppConfig: Sendable {
    var databaseURL: String
    var greeting: String
}

/// A minimal logger that collects lines, so that the example can print a summary at the end.
struct Logger: Sendable {
    let label: String
    let sink: LogSink

    func info(_ message: String) {
        sink.write("[\(label)] \(message)")
    }
}

final class LogSink: Sendable {
    private let lines = Mutex<[String]>([])

    func write(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}

// MARK: - Keys

enum ConfigKey: ContextKey {
    static var defaultValue: AppConfig { AppConfig(databaseURL: "memory://", greeting: "Hello") }
}

enum LoggerKey: ContextKey {
    static var defaultValue: Logger { Logger(label: "default", sink: LogSink()) }
}

enum RequestIDKey: ContextKey {
    static var defaultValue: String { "no request" }
}

extension ContextValues {
    var config: AppConfig {
        get { self[ConfigKey.self] }
        set { self[ConfigKey.self] = newValue }
    }

    var logger: Logger {
        get { self[LoggerKey.self] }
        set { self[LoggerKey.self] = newValue }
    }

    var requestID: String {
        get { self[RequestIDKey.self] }
        set { self[RequestIDKey.self] = newValue }
    }
}

// MARK: - Services

/// A stand-in for a database connection pool, provided by type at the app context.
final class ConnectionPool: Sendable {
    let url: String
    private let queries = Atomic<Int>(0)

    init(url: String) {
        self.url = url
    }

    func query(_ sql: String) async -> String {
        queries.wrappingAdd(1, ordering: .relaxed)
        await Task.yield()
        return "row for \(sql)"
    }

    var queryCount: Int { queries.load(ordering: .relaxed) }
}

/// A repository that resolves the pool by type and the request ID by key path.
struct UserRepository {
    @Injected(ConnectionPool.self) var pool
    @Injected(\.requestID) var requestID

    func name(ofUser id: Int) async -> String {
        _ = await pool.query("SELECT name FROM users WHERE id = \(id) -- \(requestID)")
        return "user-\(id)"
    }
}

/// The handler of one request: made inside the request's context, it reads from it for its whole life.
struct RequestHandler {
    @Injected(\.logger) var logger
    @Injected(\.config) var config
    @Injected(\.requestID) var requestID
    let users = UserRepository()

    func handle(userID: Int) async -> String {
        logger.info("start")
        let name = await users.name(ofUser: userID)
        logger.info("done")
        return "\(config.greeting), \(name) (\(requestID))"
    }
}
