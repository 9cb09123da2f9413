import Contextual
import Testing

@Suite("Boot-time validation and dump")
struct ValidationTests {
    @Test("validate() reports every missing type and every cycle at once, each cause once")
    func validateReportsEverything() {
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { ctx in
                Connection(url: try ctx.require(Database.self).url)
            }
            $0.provide(HTTPClient.self, lifetime: .scoped) { ctx in
                _ = try ctx.require(Database.self)
                return HTTPClient(name: "x")
            }
            $0.provide(ServiceA.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(ServiceB.self)
                return ServiceA()
            }
            $0.provide(ServiceB.self, lifetime: .transient) { ctx in
                _ = try ctx.require(ServiceA.self)
                return ServiceB()
            }
            $0.provide(ServiceC.self, lifetime: .singleton) { _ in ServiceC() }
        }
        let error = #expect(throws: ContextError.self) { try app.validate() }
        #expect(error?.code == .validationFailed)
        let problems = error?.underlyingErrors.compactMap { $0 as? ContextError } ?? []
        #expect(problems.map(\.code) == [.missingObject, .cycle])
        #expect(problems.first?.requestedType?.hasSuffix("Database") == true)
        #expect(error?.message.contains("found 2 problems in 5 providers") == true)
        #expect(error?.message.contains("1. [missingObject]") == true)
        #expect(error?.message.contains("2. [cycle]") == true)
    }

    @Test("validate() passes on sound wiring, builds singletons once, and keeps them")
    func validatePassesAndWarms() throws {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.provide(Database(url: "postgres://db"))
            $0.provide(Connection.self, lifetime: .singleton) { ctx in
                builds.increment()
                return Connection(url: try ctx.require(Database.self).url)
            }
            $0.provide(HTTPClient.self, lifetime: .scoped) { _ in HTTPClient(name: "scoped") }
        }
        try app.validate()
        #expect(builds.count == 1)
        _ = try app.require(Connection.self)
        #expect(builds.count == 1)
    }

    @Test("prepare() awaits async factories, reports their failures, and shuts its scope down")
    func asyncValidate() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { _ async throws in
                throw TestFailure(reason: "cannot connect")
            }
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(id: "probe", log: log) }
        }
        let error = await #expect(throws: ContextError.self) { try await app.prepare() }
        let problems = error?.underlyingErrors.compactMap { $0 as? ContextError } ?? []
        #expect(problems.map(\.code) == [.factoryFailed])
        #expect(error?.message.contains("cannot connect") == true)
        #expect(log.all == ["shutdown probe"])
    }

    @Test("prepare() reports a failing async factory once, not again through the providers that require it")
    func asyncFailureReportedOnce() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { _ async throws in
                throw TestFailure(reason: "cannot connect")
            }
            $0.provide(Transaction.self, lifetime: .scoped) { context in
                Transaction(id: try context.require(Connection.self).url, log: log)
            }
        }
        let error = try #require(await #expect(throws: ContextError.self) { try await app.prepare() })
        let problems = error.underlyingErrors.compactMap { $0 as? ContextError }
        #expect(problems.map(\.code) == [.factoryFailed])
        #expect(problems.first?.requestedType?.contains("Connection") == true)
        #expect(problems.first?.underlyingErrors.first is TestFailure)
        #expect(!error.message.contains("prepare()"))
    }

    @Test("dump() prints the chain, each entry's kind and lifetime, overrides below, and what scopes built")
    func dumpIsStable() throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.requestID = "boot"
            $0.databaseURL = "postgres://app"
            $0.provide(Database(url: "postgres://app"))
            $0.provide(Connection.self, lifetime: .singleton) { ctx in Connection(url: ctx[\.databaseURL]) }
            $0.provide(Transaction.self, lifetime: .scoped) { ctx in Transaction(id: ctx[\.requestID], log: log) }
            $0.provide(\.httpClient, lifetime: .transient) { _ in HTTPClient(name: "t") }
        }
        let request = app.scope(name: "request 1") { $0.requestID = "1" }
        _ = try request.require(Connection.self)
        _ = try request.require(Transaction.self)
        let expected = """
            Context chain of 'request 1', root first:
            - 'app' (root)
                key DatabaseURLKey: value of type String
                key HTTPClientKey: transient provider of HTTPClient
                key RequestIDKey: value of type String, overridden below in 'request 1'
                object Connection: singleton provider of Connection, built
                object Database: value of type Database
                object Transaction: scoped provider of Transaction
                built here: Connection (singleton)
            - 'request 1' (child of 'app', scope)
                key RequestIDKey: value of type String
                built here: Transaction (scoped)
            """
        #expect(request.wiringDescription == expected)
        #expect(request.debugDescription == expected)
        try #require(app.wiringDescription.hasPrefix("Context chain of 'app', root first:\n- 'app' (root)"))
    }
}
