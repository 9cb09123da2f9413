import Contextual
import Synchronization
import Testing

// Every ```swift block of README.md appears verbatim in this file (checked by .ci/check-readme.py);
// the tests below assert what the README's comments claim.

// MARK: - README: declaring keys

struct Config: Sendable {
    var databaseURL = "postgres://localhost/app"
    var verbose = false
}

enum ConfigKey: ContextKey {
    static var defaultValue: Config { Config() }
}

enum RequestIDKey: ContextKey {
    static var defaultValue: String { "-" }
}

extension ContextValues {
    var config: Config {
        get { self[ConfigKey.self] }
        set { self[ConfigKey.self] = newValue }
    }

    var requestID: String {
        get { self[RequestIDKey.self] }
        set { self[RequestIDKey.self] = newValue }
    }
}

extension Context {
    /// A dedicated modifier, like SwiftUI's `.lineLimit(2)`.
    func requestID(_ id: String) -> Context {
        child(\.requestID, id, name: "request \(id)")
    }
}

// MARK: - README: services

final class Database: Sendable {
    let url: String
    init(url: String) { self.url = url }
}

final class Cache: Sendable {}
final class Metrics: Sendable {}

struct UserService {
    @Injected(\.requestID) var requestID
    @Injected(\.config) var config
    @Injected(Database.self) var database
    @Injected(Cache.self) var cache: Cache?

    func describe() -> String {
        "\(requestID) uses \(database.url)"
    }
}

// MARK: - README: a library's keys, overridden by the tool that embeds it

public enum Verbosity: Int, Sendable {
    case quiet, normal, loud
}

enum OutputKey: ContextKey {
    static var defaultValue: @Sendable (String) -> Void { { print($0) } }
}

enum VerbosityKey: ContextKey {
    static var defaultValue: Verbosity { .normal }
}

extension ContextValues {
    public var output: @Sendable (String) -> Void {
        get { self[OutputKey.self] }
        set { self[OutputKey.self] = newValue }
    }

    public var verbosity: Verbosity {
        get { self[VerbosityKey.self] }
        set { self[VerbosityKey.self] = newValue }
    }
}

/// The library's entry point: it reads its settings from the current context.
public func runChecks() {
    let context = Context.current
    if context[\.verbosity] != .quiet {
        context[\.output]("checks passed")
    }
}

@Suite("The README's examples")
struct ReadmeTests {
    @Test("The quick start wires an app, a request and a service as the README says")
    func quickStart() {
        let app = Context(name: "app") {
            $0.config.verbose = true
            $0.provide(Database(url: "postgres://localhost/app"))
        }

        let request = app.requestID("req-42")
        let service = request.run { UserService() }

        let description = service.describe()  // "req-42 uses postgres://localhost/app"
        let cache = service.cache  // nil: nobody provides a Cache
        let appID = app[\.requestID]  // "-": the override stays in the request's subtree
        let verbose = request[\.config].verbose  // true: inherited from the app

        #expect(description == "req-42 uses postgres://localhost/app")
        #expect(cache == nil)
        #expect(appID == "-")
        #expect(verbose)

        let audited = request.child(transforming: \.config) { $0.verbose = false }
        let quiet = audited[\.config].verbose  // false; `request` still reads true

        app.update { $0.config.databaseURL = "postgres://replica/app" }
        let url = request[\.config].databaseURL  // the new URL: updates reach descendants

        do {
            _ = try request.require(Metrics.self)
        } catch {
            print(error)  // names 'Metrics', the contexts searched ('request req-42' → 'app') and the fix
        }

        #expect(quiet == false)
        #expect(request[\.config].verbose)
        #expect(url == "postgres://replica/app")
        #expect(service.describe() == "req-42 uses postgres://localhost/app")
        #expect(throws: ContextError.self) { try request.require(Metrics.self) }
    }

    @Test("A tool overrides a library's keys at its root")
    func libraryIntegration() {
        let tool = Context(name: "tool") {
            $0.verbosity = .loud
            $0.output = { line in print("[tool] \(line)") }
        }
        tool.run { runChecks() }

        // The same, capturing what the library writes.
        let lines = Lines()
        tool.child { $0.output = { lines.append($0) } }.run { runChecks() }
        tool.child {
            $0.verbosity = .quiet
            $0.output = { lines.append($0) }
        }.run { runChecks() }
        #expect(lines.all == ["checks passed"])
    }
}

/// Collects lines; a task-safe helper for the test above.
final class Lines: Sendable {
    private let storage = LinesStorage()
    func append(_ line: String) { storage.append(line) }
    var all: [String] { storage.all }
}

/// Keeps to the public API: `update` is an atomic read-modify-write, so racing appends are not lost.
final class LinesStorage: Sendable {
    private let context = Context(name: "lines") { $0.lines = [] }
    func append(_ line: String) { context.update { $0.lines.append(line) } }
    var all: [String] { context[\.lines] }
}

enum LinesKey: ContextKey {
    static var defaultValue: [String] { [] }
}

extension ContextValues {
    var lines: [String] {
        get { self[LinesKey.self] }
        set { self[LinesKey.self] = newValue }
    }
}

// MARK: - README: observation

struct Book: Sendable, Equatable {
    var title: String
}

final class Library: ObservableModel, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    @Observed var books: [Book] = []
}

@Suite("The README's observation examples")
struct ReadmeObservationTests {
    @Test("Observing the Library's books, a context's config, tracking, streams and batches")
    func observation() async {
        let printed = Lines()
        @Sendable func print(_ line: String) { printed.append(line) }

        let library = Library()
        let token = library.observe(\.books) { books in
            print("The library has \(books.count) books")
        }
        library.books.append(Book(title: "Dune"))  // prints "The library has 1 books"
        library.books = library.books  // equal: prints nothing

        #expect(printed.all == ["The library has 1 books"])

        let app = Context(name: "app") { $0.config = Config() }
        let request = app.child(name: "request") { $0.requestID = "req-1" }
        let configToken = request.observe(\.config) { config in
            print("now using \(config.databaseURL)")
        }
        app.update { $0.config.databaseURL = "postgres://primary/app" }  // prints "now using postgres://primary/app"

        #expect(printed.all.last == "now using postgres://primary/app")

        ObservationRegistry.withTracking {
            _ = library.books.count
            _ = request[\.config].verbose
        } onChange: {
            print("something the closure read changed")  // once, at the next change
        }

        ObservationRegistry.batch {
            library.books.append(Book(title: "Emma"))
            library.books.append(Book(title: "Ulysses"))
        }  // the books observer runs once, with 3 books

        #expect(printed.all.filter { $0 == "something the closure read changed" }.count == 1)
        #expect(
            printed.all.filter { $0.hasPrefix("The library has") } == [
                "The library has 1 books", "The library has 3 books",
            ]
        )

        for await count in library.changes(of: \.books.count) {
            print("\(count) books")  // the current count first, then each new one
            if count == 4 { break }
            library.books.append(Book(title: "Middlemarch"))
        }

        #expect(printed.all.filter { !$0.hasPrefix("The") && $0.hasSuffix(" books") } == ["3 books", "4 books"])
        token.cancel()
        configToken.cancel()
    }
}

// MARK: - README: server wiring

final class ConnectionPool: ScopeShutdown {
    let url: String
    init(url: String) { self.url = url }
    static func connect(to url: String) async throws -> ConnectionPool { ConnectionPool(url: url) }
    func shutdown() async throws {}  // drain the connections
}

final class Transaction: ScopeShutdown {
    let pool: ConnectionPool
    init(pool: ConnectionPool) { self.pool = pool }
    func shutdown() async throws {}  // commit or roll back
}

@Suite("The README's server wiring")
struct ReadmeServerTests {
    @Test("The server wiring validates, gives one transaction per request scope, and dumps as shown")
    func serverWiring() async throws {
        let server = Context(name: "server") {
            $0.config.databaseURL = "postgres://db/app"
            $0.provide(ConnectionPool.self, lifetime: .singleton) { server in
                try await ConnectionPool.connect(to: server[\.config].databaseURL)
            }
            $0.provide(Transaction.self, lifetime: .scoped) { request in
                Transaction(pool: try request.require(ConnectionPool.self))
            }
        }
        try await server.prepare()  // builds the pool; reports every problem at once
        #expect(try server.require(ConnectionPool.self).url == "postgres://db/app")

        let sameTransaction = try await server.withScope(name: "request 7") {
            $0.requestID = "7"
        } body: { request in
            let transaction = try request.require(Transaction.self)  // built for this request
            let again = try request.require(Transaction.self)  // the same one
            return transaction === again
        }  // true; the transaction was shut down when the scope ended
        #expect(sameTransaction)

        let request = server.scope(name: "request 8") { $0.requestID = "8" }
        _ = try request.require(Transaction.self)
        print(request.wiringDescription)
        // Context chain of 'request 8', root first:
        // - 'server' (root)
        //     key ConfigKey: value of type Config
        //     object ConnectionPool: singleton provider (async) of ConnectionPool, built
        //     object Transaction: scoped provider of Transaction
        //     built here: ConnectionPool (singleton)
        // - 'request 8' (child of 'server', scope)
        //     key RequestIDKey: value of type String
        //     built here: Transaction (scoped)
        try await request.shutdown()
        #expect(
            request.wiringDescription == """
                Context chain of 'request 8', root first:
                - 'server' (root)
                    key ConfigKey: value of type Config
                    object ConnectionPool: singleton provider (async) of ConnectionPool, built
                    object Transaction: scoped provider of Transaction
                    built here: ConnectionPool (singleton)
                - 'request 8' (child of 'server', scope, ended)
                    key RequestIDKey: value of type String
                    built here: Transaction (scoped)
                """
        )
    }
}

// MARK: - README: members, container values, preferences and contributions

enum MyCustomValueKey: ContainerValueKey {
    static var defaultValue: String { "Default value" }
}

extension ContainerValues {
    var myCustomValue: String {
        get { self[MyCustomValueKey.self] }
        set { self[MyCustomValueKey.self] = newValue }
    }
}

extension Context {
    @discardableResult
    func myCustomValue(_ value: String) -> Context {
        setContainerValue(\.myCustomValue, value)
        return self
    }
}

struct MyContainer {
    let context = Context(name: "host")

    func lines() -> [String] {
        context.members.map { member in "\(member.name ?? "?"): \(member.containerValues.myCustomValue)" }
    }
}

enum RoutesKey: ArrayContributionKey {
    typealias Element = String
}

enum HealthChecksKey: DictionaryContributionKey {
    typealias EntryKey = String
    typealias EntryValue = HealthCheck
}

struct HealthCheck: Sendable {
    let check: @Sendable () -> Bool
}

/// Where the server installs its routes: a stand-in for a real router.
final class RouteTable: Sendable {
    private let current = Mutex<[String]>([])
    func install(_ routes: [String]) { current.withLock { $0 = routes } }
    var routes: [String] { current.withLock { $0 } }
}

extension PreferenceValues {
    var routes: [String] {
        get { self[RoutesKey.self] }
        set { self[RoutesKey.self] = newValue }
    }

    var healthChecks: Contributions<String, HealthCheck> {
        get { self[HealthChecksKey.self] }
        set { self[HealthChecksKey.self] = newValue }
    }
}

@Suite("The README's members, preferences and contributions")
struct ReadmeMembersTests {
    @Test("MyContainer lists its modules with each one's custom value")
    func myContainer() {
        let container = MyContainer()
        let billing = container.context.member(name: "billing").myCustomValue("Invoices and refunds")
        let auth = container.context.member(name: "auth") { $0.containerValues.myCustomValue = "Sign-in" }
        let metrics = container.context.member(name: "metrics")  // sets nothing: reads the default
        let refunds = billing.member(name: "refunds").myCustomValue("Refunds")  // billing's member, not the host's

        let listing = container.lines()  // ["billing: Invoices and refunds", "auth: Sign-in", "metrics: Default value"]

        #expect(listing == ["billing: Invoices and refunds", "auth: Sign-in", "metrics: Default value"])
        #expect(billing.members.map(\.containerValues.myCustomValue) == ["Refunds"])
        withExtendedLifetime((auth, metrics, refunds)) {}
    }

    @Test("Modules contribute routes and health checks; a duplicate key is reported")
    func contributions() throws {
        let server = Context(name: "server")
        let installed = RouteTable()
        let token = server.observePreference(\.routes) { routes in installed.install(routes) }

        let invoices = server.member(name: "invoices") { $0.preferences.routes = ["/invoices"] }
        invoices.contribute(\.healthChecks, key: "ledger", HealthCheck { true })
        let accounts = server.member(name: "accounts", ownership: .owned)
        accounts.contribute(\.routes, "/login", "/logout")
        accounts.contribute(\.healthChecks, key: "sessions", HealthCheck { true })

        let routes = server.preference(\.routes)  // ["/invoices", "/login", "/logout"]
        let checks = try server.contributions(\.healthChecks)  // ["ledger": …, "sessions": …]
        let seen = installed.routes  // the same: the observer saw each module arrive

        accounts.contribute(\.healthChecks, key: "ledger", HealthCheck { false })
        do {
            _ = try server.contributions(\.healthChecks)
        } catch {
            print(error)  // .duplicateContribution: the key "ledger", from 'server → invoices' and 'server → accounts'
        }

        #expect(routes == ["/invoices", "/login", "/logout"])
        #expect(checks.keys.sorted() == ["ledger", "sessions"])
        #expect(checks.values.allSatisfy { $0.check() })
        #expect(seen == routes)
        let error = #expect(throws: ContextError.self) { try server.contributions(\.healthChecks) }
        #expect(error?.code == .duplicateContribution)
        #expect(error?.message.contains("from 'server → invoices' and from 'server → accounts'") == true)
        withExtendedLifetime(invoices) {}
        token.cancel()
    }
}
