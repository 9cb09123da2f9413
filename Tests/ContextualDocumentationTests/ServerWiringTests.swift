import Contextual
import Synchronization
import Testing

// The ```swift blocks of Articles/ServerWiring.md, verbatim, and what their prose, comments and rules
// claim. The keys `config` and `requestID` come from GettingStartedTests.swift.

// MARK: - Declare what the server builds

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

// MARK: - Key-path providers

enum BuildLabelKey: ContextKey {
    static var defaultValue: String { "unknown" }
}

extension ContextValues {
    var buildLabel: String {
        get { self[BuildLabelKey.self] }
        set { self[BuildLabelKey.self] = newValue }
    }
}

// MARK: - Forwarding, factories with arguments, every provider of a type

protocol UserStore: Sendable {}
protocol OrderStore: Sendable {}
final class PostgresStore: UserStore, OrderStore {}

struct ReportBuilder: Sendable {
    let user: String
    let days: Int
    let source: String
}

protocol StatusProbe: Sendable { var name: String { get } }
final class DatabaseProbe: StatusProbe { var name: String { "database" } }
final class QueueProbe: StatusProbe { var name: String { "queue" } }

// MARK: - Test doubles for the rules (not in the article)

/// An object that records its shutdown, and fails it when asked to; one type per `Tag`.
private final class Resource<Tag>: ScopeShutdown {
    let name: String
    let log: Lines
    let fails: Bool

    init(_ name: String, log: Lines, fails: Bool = false) {
        self.name = name
        self.log = log
        self.fails = fails
    }

    func shutdown() async throws {
        log.append("shutdown \(name)")
        if fails { throw SampleFailure(reason: "\(name) failed") }
    }
}

private final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// The synchronous `require`, callable from an async test (where `require` is the async form).
private func requireSynchronously<T: Sendable>(_ type: T.Type, from context: Context) throws(ContextError) -> T {
    try context.require(type)
}

private final class First: Sendable {}
private final class Second: Sendable {}
private final class Third: Sendable {}

@Suite("Server wiring")
struct ServerWiringTests {
    @Test("The server validates, gives one transaction per request scope, and describes its wiring as shown")
    func serverWiring() async throws {
        let printed = Lines()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

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
        #expect(server.wiringDescription.contains("singleton provider (async) of ConnectionPool, built"))

        let sameTransaction = try await server.withScope(name: "request 7") {
            $0.requestID = "7"
        } body: { request in
            let transaction = try request.require(Transaction.self)  // built for this request
            let again = try request.require(Transaction.self)  // the same one
            return transaction === again
        }  // true; the transaction was shut down when the scope ended
        #expect(sameTransaction)

        let scope = RequestScope(of: server, requestID: "r-9") { values, id in values.requestID = id }
        let body = await scope.run { Context.current[\.requestID] }  // "r-9"
        scope.hold()  // a streamed body, written after the handler returned, holds the scope
        try await scope.end()  // the middleware's hold; the response is unsent, so a failed commit throws here
        await scope.runThenEnd { _ = body }  // the body is written; the last hold ends the scope
        #expect(body == "r-9" && scope.context.name == "request r-9")
        #expect(scope.isEnded && scope.context.isEnded)

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
            printed.all == [
                """
                Context chain of 'request 8', root first:
                - 'server' (root)
                    key ConfigKey: value of type Config
                    object ConnectionPool: singleton provider (async) of ConnectionPool, built
                    object Transaction: scoped provider of Transaction
                    built here: ConnectionPool (singleton)
                - 'request 8' (child of 'server', scope)
                    key RequestIDKey: value of type String
                    built here: Transaction (scoped)
                """
            ]
        )
        let ended = request.wiringDescription.split(separator: "\n")
        #expect(ended[ended.count - 3] == "- 'request 8' (child of 'server', scope, ended)")
        #expect(request.debugDescription == request.wiringDescription)
        #expect(request.isEnded)
        #expect(request[\.requestID] == "8")
        let afterwards = #expect(throws: ContextError.self) { try request.require(Transaction.self) }
        #expect(afterwards?.code == .scopeEnded)
    }

    @Test("A singleton resolves from the registering context, and the nearest of a value and a provider wins")
    func whereFactoriesResolveFrom() async throws {
        let server = Context(name: "server") {
            $0.config.databaseURL = "postgres://db/app"
            $0.provide(ConnectionPool.self, lifetime: .singleton) { server in
                try await ConnectionPool.connect(to: server[\.config].databaseURL)
            }
        }

        let tenant = server.child(name: "tenant") { $0.config.databaseURL = "postgres://tenant/app" }
        let pool = try await tenant.prepare(ConnectionPool.self)  // the server's pool, built from the server's config
        let mock = tenant.child(providing: ConnectionPool(url: "mock://"), name: "mocked")
        let mocked = try mock.require(ConnectionPool.self)  // the nearest wins: the mock

        #expect(pool.url == "postgres://db/app")
        #expect(pool === (try server.require(ConnectionPool.self)))
        #expect(mocked.url == "mock://")
        // The other way round: a provider below a value wins over the value.
        let reProvided = mock.child(name: "re-provided") {
            $0.provide(ConnectionPool.self, lifetime: .transient) { ctx in
                ConnectionPool(url: ctx[\.config].databaseURL)
            }
        }
        #expect(try reProvided.require(ConnectionPool.self).url == "postgres://tenant/app")
    }

    @Test("A key-path provider builds on its first read, and require reads it")
    func keyPathProvider() throws {
        let unread = Context(name: "unread") {
            $0.provide(\.buildLabel, lifetime: .singleton) { _ in "build 512" }
        }
        #expect(unread.wiringDescription.hasSuffix("key BuildLabelKey: singleton provider of String"))

        let labelled = Context(name: "labelled") {
            $0.provide(\.buildLabel, lifetime: .singleton) { _ in "build 512" }
        }

        let label = labelled[\.buildLabel]  // "build 512", built on this first read
        let checked = try labelled.require(\.buildLabel)  // the same, with a failure thrown instead of stopping

        #expect(label == "build 512")
        #expect(checked == "build 512")
        #expect(labelled.wiringDescription.contains("key BuildLabelKey: singleton provider of String, built\n"))
        #expect(labelled.wiringDescription.hasSuffix("built here: BuildLabelKey (singleton)"))
        let failing = Context(name: "failing") {
            $0.provide(\.buildLabel, lifetime: .singleton) { _ in throw SampleFailure(reason: "no label") }
        }
        let error = #expect(throws: ContextError.self) { try failing.require(\.buildLabel) }
        #expect(error?.code == .factoryFailed)
    }

    @Test("Scoped objects: one per scope, or per child of the registrar on the way; noScope on the registrar")
    func scopedLifetime() throws {
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(pool: ConnectionPool(url: "p")) }
        }
        let request = app.child(name: "request")
        let derived = request.child(\.requestID, "r")
        #expect(try request.require(Transaction.self) === (try derived.require(Transaction.self)))
        #expect(try app.child(name: "other").require(Transaction.self) !== (try request.require(Transaction.self)))
        let error = #expect(throws: ContextError.self) { try app.require(Transaction.self) }
        #expect(error?.code == .noScope)
    }

    @Test("A transient object is built on every resolve, from the asking context")
    func transientLifetime() throws {
        let app = Context(name: "app") {
            $0.provide(ConnectionPool.self, lifetime: .transient) { ctx in ConnectionPool(url: ctx[\.requestID]) }
        }
        let request = app.child(\.requestID, "r")
        let first = try request.require(ConnectionPool.self)
        let second = try request.require(ConnectionPool.self)
        #expect(first !== second)
        #expect(first.url == "r")
    }

    @Test("Many tasks resolving a singleton at once run its factory once")
    func exactlyOnce() async {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.provide(ConnectionPool.self, lifetime: .singleton) { _ in
                builds.increment()
                return ConnectionPool(url: "once")
            }
        }
        let identities = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<32 { group.addTask { ObjectIdentifier(app.resolve(ConnectionPool.self) as ConnectionPool) } }
            var seen = Set<ObjectIdentifier>()
            for await identity in group { seen.insert(identity) }
            return seen
        }
        #expect(builds.count == 1)
        #expect(identities.count == 1)
    }

    @Test("A failing factory reaches require as factoryFailed, nothing is cached, and the next resolve retries")
    func failures() throws {
        let attempts = Counter()
        let app = Context(name: "app") {
            $0.provide(ConnectionPool.self, lifetime: .singleton) { _ in
                attempts.increment()
                if attempts.count == 1 { throw SampleFailure(reason: "database down") }
                return ConnectionPool(url: "up")
            }
        }
        let error = #expect(throws: ContextError.self) { try app.require(ConnectionPool.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.underlyingErrors.first as? SampleFailure == SampleFailure(reason: "database down"))
        #expect(try app.require(ConnectionPool.self).url == "up")
        #expect(attempts.count == 2)
    }

    @Test("An async provider fails synchronous resolves until it is built, then serves them")
    func asyncProviders() async throws {
        let app = Context(name: "app") {
            $0.provide(ConnectionPool.self, lifetime: .singleton) { _ async throws in ConnectionPool(url: "async") }
        }
        let before = #expect(throws: ContextError.self) { try requireSynchronously(ConnectionPool.self, from: app) }
        #expect(before?.code == .asyncProvider)
        let built = try await app.prepare(ConnectionPool.self)
        let after: ConnectionPool = app.child(name: "later").resolve(ConnectionPool.self)
        #expect(built === after)
    }

    @Test("A singleton resolving a scoped object is a captive dependency")
    func captiveDependency() {
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(pool: ConnectionPool(url: "p")) }
            $0.provide(ConnectionPool.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(Transaction.self)
                return ConnectionPool(url: "captive")
            }
        }
        let error = #expect(throws: ContextError.self) { try app.child(name: "request").require(ConnectionPool.self) }
        #expect(error?.code == .captiveDependency)
    }

    @Test("A cycle is reported with its whole path")
    func cycles() {
        let app = Context(name: "app") {
            $0.provide(First.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(Second.self)
                return First()
            }
            $0.provide(Second.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(First.self)
                return Second()
            }
        }
        let error = #expect(throws: ContextError.self) { try app.require(First.self) }
        #expect(error?.code == .cycle)
        #expect(error?.resolutionPath == ["First (singleton)", "Second (singleton)", "First (singleton)"])
    }

    @Test("Validation reports every problem at once and keeps the singletons it built")
    func validation() throws {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.provide(First.self, lifetime: .singleton) { _ in
                builds.increment()
                return First()
            }
            $0.provide(Second.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(Third.self)
                return Second()
            }
            $0.provide(ConnectionPool.self, lifetime: .singleton) { _ in throw SampleFailure(reason: "down") }
        }
        let error = #expect(throws: ContextError.self) { try app.validate() }
        #expect(error?.code == .validationFailed)
        let codes = (error?.underlyingErrors ?? []).compactMap { ($0 as? ContextError)?.code }
        #expect(Set(codes) == [.missingObject, .factoryFailed])
        #expect(builds.count == 1)
        _ = try app.require(First.self)
        #expect(builds.count == 1)
    }

    @Test("validate skips async factories; prepare awaits them and shuts its throwaway scope down")
    func validateAndPrepare() async throws {
        let log = Lines()
        let app = Context(name: "app") {
            $0.provide(ConnectionPool.self, lifetime: .singleton) { _ async throws in ConnectionPool(url: "async") }
            $0.provide(Resource<First>.self, lifetime: .scoped) { _ in Resource("probe", log: log) }
        }
        try app.validate()
        #expect(app.wiringDescription.contains("singleton provider (async) of ConnectionPool\n"))
        #expect(log.all.isEmpty)
        try await app.prepare()
        #expect(app.wiringDescription.contains("singleton provider (async) of ConnectionPool, built"))
        #expect(log.all == ["shutdown probe"])
    }

    @Test("Shutdown: reverse order of creation, every object even when one throws, errors together")
    func shutdown() async throws {
        let log = Lines()
        let app = Context(name: "app") {
            $0.config.verbose = true
            $0.provide(Resource<First>.self, lifetime: .scoped) { _ in Resource("a", log: log) }
            $0.provide(Resource<Second>.self, lifetime: .scoped) { _ in Resource("b", log: log, fails: true) }
            $0.provide(Resource<Third>.self, lifetime: .scoped) { _ in Resource("c", log: log) }
        }
        let request = app.scope(name: "request")
        _ = try request.require(Resource<First>.self)
        _ = try request.require(Resource<Second>.self)
        _ = try request.require(Resource<Third>.self)
        let error = await #expect(throws: ContextError.self) { try await request.shutdown() }
        #expect(error?.code == .shutdownFailed)
        #expect(error?.underlyingErrors.first as? SampleFailure == SampleFailure(reason: "b failed"))
        #expect(log.all == ["shutdown c", "shutdown b", "shutdown a"])
        // Afterwards it builds nothing, and its values stay readable.
        let ended = #expect(throws: ContextError.self) { try request.require(Resource<First>.self) }
        #expect(ended?.code == .scopeEnded)
        #expect(request[\.config].verbose)
        try await request.shutdown()  // again: does nothing
        #expect(log.all.count == 3)
    }

    @Test("withScope ends the scope when the body throws, and loses neither error")
    func withScopeKeepsBothErrors() async {
        let log = Lines()
        let app = Context(name: "app") {
            $0.provide(Resource<Second>.self, lifetime: .scoped) { _ in Resource("b", log: log, fails: true) }
        }
        let error = await #expect(throws: ContextError.self) {
            try await app.withScope(
                name: "both",
                body: { scope in
                    _ = try scope.require(Resource<Second>.self)
                    throw SampleFailure(reason: "body failed")
                }
            )
        }
        #expect(error?.code == .shutdownFailed)
        let underlying = (error?.underlyingErrors ?? []).compactMap { $0 as? SampleFailure }
        #expect(underlying == [SampleFailure(reason: "body failed"), SampleFailure(reason: "b failed")])
        #expect(log.all == ["shutdown b"])
    }

    @Test("A forwarded singleton is one object under each of its types")
    func forwarding() throws {
        let stores = Context(name: "stores") {
            $0.provide(PostgresStore.self, lifetime: .singleton) { _ in PostgresStore() }
            $0.forward(UserStore.self, OrderStore.self, to: PostgresStore.self)
        }
        let users = try stores.require(UserStore.self)
        let orders = try stores.require(OrderStore.self)  // the same PostgresStore, built once

        #expect(users as AnyObject === orders as AnyObject)
        #expect(try stores.require(PostgresStore.self) === users as AnyObject)
        try stores.validate()
        let line = "object UserStore: singleton provider of UserStore, forwarded to PostgresStore, built"
        #expect(stores.wiringDescription.contains(line))
    }

    @Test("A provided factory takes arguments and resolves the rest from its context")
    func factoryWithArguments() throws {
        let reporting = Context(name: "reporting") {
            $0.config.databaseURL = "postgres://db/app"
            $0.provideFactory(ReportBuilder.self) { (ctx: Context, args: (user: String, days: Int)) in
                ReportBuilder(user: args.user, days: args.days, source: ctx[\.config].databaseURL)
            }
        }
        let weekly = try reporting.make(ReportBuilder.self, (user: "ada", days: 7))
        let makeReport = try reporting.require(Factory<(user: String, days: Int), ReportBuilder>.self)
        let monthly = try makeReport((user: "ada", days: 30))  // a callable, to hand to code that builds many

        #expect(weekly.days == 7 && weekly.user == "ada" && weekly.source == "postgres://db/app")
        #expect(monthly.days == 30)
        let tenant = reporting.child { $0.config.databaseURL = "postgres://tenant/app" }
        #expect(try tenant.make(ReportBuilder.self, (user: "bob", days: 1)).source == "postgres://tenant/app")
        try reporting.validate()
    }

    @Test("Every provider of a type is resolved root first, in the order added")
    func everyProvider() throws {
        let monitored = Context(name: "monitored") {
            $0.addProvider(StatusProbe.self, lifetime: .singleton) { _ in DatabaseProbe() }
        }
        let module = monitored.child(name: "queue module") {
            $0.addProvider(StatusProbe.self, lifetime: .transient) { _ in QueueProbe() }
        }
        let probes = try module.requireAll(StatusProbe.self)  // [DatabaseProbe, QueueProbe]: root first
        let rootProbes = monitored.resolveAll(StatusProbe.self)  // [DatabaseProbe]

        #expect(probes.map(\.name) == ["database", "queue"])
        #expect(rootProbes.map(\.name) == ["database"])
        #expect(rootProbes[0] as AnyObject === probes[0] as AnyObject)
        #expect(module.resolve(StatusProbe.self) == nil)  // a separate registration from provide
        try module.validate()
    }
}
