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

/// A stand-in for a database connection pool: an async singleton (connecting is awaited), shut down
/// with the app.
final class ConnectionPool: ScopeShutdown {
    let url: String
    private let queries = Atomic<Int>(0)
    private let transactions = Atomic<Int>(0)
    private let drained = Atomic<Bool>(false)

    private init(url: String) {
        self.url = url
    }

    /// Connects to `url`: the reason this provider's factory is async.
    static func connect(to url: String) async throws -> ConnectionPool {
        try await Task.sleep(for: .milliseconds(5))
        return ConnectionPool(url: url)
    }

    func query(_ sql: String) async -> String {
        queries.wrappingAdd(1, ordering: .relaxed)
        await Task.yield()
        return "row for \(sql)"
    }

    func openTransaction() -> Int {
        transactions.wrappingAdd(1, ordering: .relaxed).newValue
    }

    func shutdown() async throws {
        drained.store(true, ordering: .relaxed)
    }

    var queryCount: Int { queries.load(ordering: .relaxed) }
    var transactionCount: Int { transactions.load(ordering: .relaxed) }
    var isDrained: Bool { drained.load(ordering: .relaxed) }
    var isOpen: Bool { !isDrained }
}

/// One transaction per request: a scoped object, committed when the request's scope ends.
final class Transaction: ScopeShutdown {
    let number: Int
    let requestID: String
    private let ledger: Ledger

    init(pool: ConnectionPool, requestID: String, ledger: Ledger) {
        self.number = pool.openTransaction()
        self.requestID = requestID
        self.ledger = ledger
    }

    func shutdown() async throws {
        ledger.record(transaction: number, of: requestID)
    }
}

/// What the example counts, to print its summary.
final class Ledger: Sendable {
    private let state = Mutex<(committed: [Int: String], reloads: Int)>(([:], 0))

    func record(transaction: Int, of requestID: String) {
        state.withLock { $0.committed[transaction] = requestID }
    }

    func recordReload() {
        state.withLock { $0.reloads += 1 }
    }

    var committed: [Int: String] { state.withLock { $0.committed } }
    var reloads: Int { state.withLock { $0.reloads } }

    private let connectWaits = Mutex<Duration>(.zero)

    /// How long the pool's connection retries waited on the clock.
    func recordConnectWait(_ waited: Duration) {
        connectWaits.withLock { $0 += waited }
    }

    var connectWait: Duration { connectWaits.withLock { $0 } }
}

/// A gate that tasks await until it opens: the later requests wait behind it for the reload, so that
/// which requests see it never depends on timing.
final class Gate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Returns once the gate is open, at once if it is.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Opens the gate, resuming every task waiting for it.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A repository that resolves the request's transaction by type and the request ID by key path.
struct UserRepository {
    @Injected(Transaction.self) var transaction
    @Injected(\.requestID) var requestID

    func name(ofUser id: Int) async -> String {
        await Task.yield()  // after awaiting, the bindings still read this request's values
        return transaction.requestID == requestID ? "user-\(id)" : "user-\(id) (another request's transaction!)"
    }
}

/// The handler of one request: made inside the request's scope, it reads from it for its whole life.
struct RequestHandler {
    @Injected(\.logger) var logger
    @Injected(\.config) var config
    @Injected(\.requestID) var requestID
    @Injected(ConnectionPool.self) var pool
    @Injected(Transaction.self) var transaction
    let users = UserRepository()

    func handle(userID: Int) async -> Response {
        logger.info("start")
        let greeting = config.greeting
        _ = await pool.query("SELECT name FROM users WHERE id = \(userID)")
        let name = await users.name(ofUser: userID)
        logger.info("done")
        let isolated = requestID == Context.current[\.requestID] && transaction === users.transaction
        return Response(
            requestID: requestID,
            text: "\(greeting), \(name)",
            transaction: transaction.number,
            isolated: isolated
        )
    }
}

struct Response: Sendable {
    let requestID: String
    let text: String
    let transaction: Int
    let isolated: Bool
}
