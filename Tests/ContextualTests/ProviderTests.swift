import Contextual
import Testing

@Suite("Providers and lifetimes")
struct ProviderTests {
    // MARK: - Lifetimes

    @Test("A singleton is built lazily, once, and shared by the registering context and its descendants")
    func singletonBuiltOnceAndShared() throws {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.databaseURL = "postgres://app"
            $0.provide(Connection.self, lifetime: .singleton) { ctx in
                builds.increment()
                return Connection(url: ctx[\.databaseURL])
            }
        }
        #expect(builds.count == 0)
        let first = try app.require(Connection.self)
        let fromChild = try app.child(name: "request").require(Connection.self)
        let fromGrandchild: Connection = app.child().child().resolve(Connection.self)
        #expect(first === fromChild)
        #expect(first === fromGrandchild)
        #expect(builds.count == 1)
    }

    @Test("A singleton resolves its dependencies from the registering context, not from the child that asked")
    func singletonResolvesFromRegistrar() throws {
        let app = Context(name: "app") {
            $0.databaseURL = "postgres://app"
            $0.provide(Connection.self, lifetime: .singleton) { ctx in Connection(url: ctx[\.databaseURL]) }
        }
        let tenant = app.child(name: "tenant") { $0.databaseURL = "postgres://tenant" }
        #expect(try tenant.require(Connection.self).url == "postgres://app")
    }

    @Test("A scoped object is built once per request, and shared by contexts derived from that request")
    func scopedOncePerRequest() throws {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .scoped) { scope in
                builds.increment()
                return Connection(url: scope[\.requestID])
            }
        }
        let first = app.child(name: "request 1") { $0.requestID = "1" }
        let second = app.child(name: "request 2") { $0.requestID = "2" }
        let a = try first.require(Connection.self)
        #expect(try first.require(Connection.self) === a)
        #expect(try first.child(\.verbosity, 3).require(Connection.self) === a)
        let b = try second.require(Connection.self)
        #expect(a !== b)
        #expect(a.url == "1")
        #expect(b.url == "2")
        #expect(builds.count == 2)
    }

    @Test("A scoped object belongs to the nearest scope made with scope(name:), which its factory resolves from")
    func scopedBelongsToNearestScope() throws {
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .scoped) { scope in Connection(url: scope[\.requestID]) }
        }
        let server = app.child(name: "server") { $0.requestID = "server" }
        let request = server.scope(name: "request") { $0.requestID = "request" }
        let step = request.child(\.verbosity, 1)
        #expect(try step.require(Connection.self).url == "request")
        #expect(try step.require(Connection.self) === (try request.require(Connection.self)))
        #expect(try server.require(Connection.self).url == "server")
    }

    @Test("Resolving a scoped object from the context that registered it is an error naming the fix")
    func scopedFromRegistrarFails() {
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .scoped) { _ in Connection(url: "x") }
        }
        let error = #expect(throws: ContextError.self) { try app.require(Connection.self) }
        #expect(error?.code == .noScope)
        #expect(error?.message.contains("app.scope(name:") == true)
    }

    @Test("A built object is kept as it is whether it is a class, a struct or an existential")
    func builtObjectsOfEveryKind() {
        // A class instance is kept in the cell as itself, anything else in a box: both read back intact.
        let builds = Counter()
        let app = Context(name: "app") {
            $0.provide(Book.self, lifetime: .singleton) { _ in
                builds.increment()
                return Book(title: "Dune")
            }
            $0.provide(HTTPClient.self, lifetime: .singleton) { _ in HTTPClient(name: "kept") }
            $0.provide((any Sendable).self, lifetime: .singleton) { _ in Book(title: "boxed") }
        }
        let request = app.child(name: "request")
        #expect(request.resolve(Book.self) == Book(title: "Dune"))
        #expect(request.resolve(Book.self) == Book(title: "Dune"))
        #expect(builds.count == 1)
        let client: HTTPClient = request.resolve(HTTPClient.self)
        #expect(client === (request.resolve(HTTPClient.self) as HTTPClient))
        #expect(client.name == "kept")
        let existential: any Sendable = request.resolve((any Sendable).self)
        #expect((existential as? Book) == Book(title: "boxed"))
    }

    @Test("A transient object is built on every resolve, from the asking context")
    func transientBuiltEachTime() throws {
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .transient) { ctx in Connection(url: ctx[\.requestID]) }
        }
        let request = app.child { $0.requestID = "r" }
        let a = try request.require(Connection.self)
        let b = try request.require(Connection.self)
        #expect(a !== b)
        #expect(a.url == "r")
    }

    @Test("The nearest of a value and a provider wins, in either direction")
    func nearestOfValueAndProviderWins() throws {
        let fixed = Connection(url: "fixed")
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { _ in Connection(url: "built") }
        }
        let overridden = app.child(providing: fixed)
        #expect(try overridden.require(Connection.self) === fixed)
        let reProvided = overridden.child {
            $0.provide(Connection.self, lifetime: .transient) { _ in Connection(url: "t") }
        }
        #expect(try reProvided.require(Connection.self).url == "t")
        #expect(try app.require(Connection.self).url == "built")
    }

    @Test("@Injected resolves providers by type and by key path, from the context it is bound to")
    func injectedResolvesProviders() {
        struct Service {
            @Injected(Connection.self) var connection
            @Injected(\.httpClient) var client
        }
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .scoped) { scope in Connection(url: scope[\.requestID]) }
            $0.provide(\.httpClient, lifetime: .singleton) { _ in HTTPClient(name: "shared") }
        }
        let request = app.child { $0.requestID = "r1" }
        let service = request.run { Service() }
        #expect(service.connection.url == "r1")
        #expect(service.connection === service.connection)
        #expect(service.client.name == "shared")
        #expect(service.client === app[\.httpClient])
    }

    @Test("@Injected keeps a built singleton, reads a transient anew each time, and a scoped one from its scope")
    func injectedKeepsOnlyStableObjects() async throws {
        struct Service {
            @Injected(Connection.self) var transient
            @Injected(HTTPClient.self) var singleton
            @Injected(Transaction.self) var scoped
        }
        let builds = Counter()
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .transient) { _ in Connection(url: "t") }
            $0.provide(HTTPClient.self, lifetime: .singleton) { _ in
                builds.increment()
                return HTTPClient(name: "s")
            }
            $0.provide(Transaction.self, lifetime: .scoped) { scope in Transaction(id: scope[\.requestID], log: log) }
        }
        let request = app.scope(name: "request") { $0.requestID = "r" }
        let service = request.run { Service() }
        #expect(service.transient !== service.transient)
        // Read enough times that the property would keep what it read (it keeps only stable objects).
        let transients = (0..<4).map { _ in service.transient }  // kept alive: identities stay distinct
        #expect(Set(transients.map(ObjectIdentifier.init)).count == 4)
        let singletons = (0..<4).map { _ in service.singleton }
        #expect(Set(singletons.map(ObjectIdentifier.init)).count == 1)
        #expect(service.singleton === service.singleton)
        #expect(service.scoped === service.scoped)
        #expect(service.scoped.id == "r")
        #expect(builds.count == 1)
        try await request.shutdown()
        #expect(log.all == ["shutdown r"])
        #expect((try? request.require(Transaction.self)) == nil)
    }

    @Test("A key-path provider builds lazily, and a value set below it overrides it")
    func keyPathProvider() {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.provide(\.httpClient, lifetime: .singleton) { _ in
                builds.increment()
                return HTTPClient(name: "lazy")
            }
        }
        #expect(builds.count == 0)
        #expect(app[\.httpClient].name == "lazy")
        #expect(app.child()[\.httpClient] === app[\.httpClient])
        #expect(app.child(\.httpClient, HTTPClient(name: "mock"))[\.httpClient].name == "mock")
        #expect(builds.count == 1)
    }

    // MARK: - Concurrency

    @Test("64 tasks racing for one singleton construct it exactly once and all get the same object")
    func exactlyOnceUnderRace() async {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { _ in
                builds.increment()
                // Widen the window in which the others arrive while it builds.
                for _ in 0..<20_000 { _ = builds.count }
                return Connection(url: "once")
            }
        }
        let objects = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for index in 0..<64 {
                group.addTask { ObjectIdentifier(app.child(name: "r\(index)") { _ in }.resolve(Connection.self)) }
            }
            var seen = Set<ObjectIdentifier>()
            for await object in group { seen.insert(object) }
            return seen
        }
        #expect(builds.count == 1)
        #expect(objects.count == 1)
    }

    @Test("64 tasks racing for an async singleton construct it exactly once")
    func asyncExactlyOnceUnderRace() async throws {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { _ async throws in
                builds.increment()
                try await Task.sleep(for: .milliseconds(20))
                return Connection(url: "async")
            }
        }
        let objects = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<64 { group.addTask { ObjectIdentifier(try await app.prepare(Connection.self)) } }
            var seen = Set<ObjectIdentifier>()
            for try await object in group { seen.insert(object) }
            return seen
        }
        #expect(builds.count == 1)
        #expect(objects.count == 1)
        // Once built, synchronous resolves return it.
        #expect(try ObjectIdentifier(app.require(Connection.self)) == objects.first)
    }

    @Test("A synchronous resolve of an async provider not built yet is an error that says to await it")
    func asyncProviderResolvedSynchronously() {
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { _ async throws in Connection(url: "a") }
        }
        let error = #expect(throws: ContextError.self) { try app.require(Connection.self) }
        #expect(error?.code == .asyncProvider)
        #expect(error?.message.contains("try await context.prepare(") == true)
    }

    @Test("A slow factory blocks only resolvers of that provider, never the rest of the container")
    func slowFactoryBlocksOnlyItsProvider() async {
        let release = Gate()
        let started = Gate()
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { _ in
                started.open()
                release.wait()
                return Connection(url: "slow")
            }
            $0.provide(HTTPClient.self, lifetime: .singleton) { _ in HTTPClient(name: "fast") }
        }
        async let slow = onThread { app.resolve(Connection.self).url }
        let others = await onThread { () -> [String] in
            started.wait()
            // While the slow factory runs, other providers and values resolve.
            let seen = [(try? app.require(HTTPClient.self).name) ?? "failed", app[\.requestID]]
            release.open()
            return seen
        }
        #expect(others == ["fast", "none"])
        #expect(await slow == "slow")
    }

    // MARK: - Failures

    @Test("A throwing factory's error reaches require, nothing is cached, and the next resolve tries again")
    func throwingFactoryRetries() throws {
        let attempts = Counter()
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { _ in
                attempts.increment()
                if attempts.count == 1 { throw TestFailure(reason: "database down") }
                return Connection(url: "up")
            }
        }
        let error = #expect(throws: ContextError.self) { try app.require(Connection.self) }
        #expect(error?.code == .factoryFailed)
        #expect((error?.underlyingErrors.first as? TestFailure)?.reason == "database down")
        #expect(error?.message.contains("Connection (singleton)") == true)
        #expect(error?.message.contains("database down") == true)
        #expect(try app.require(Connection.self).url == "up")
        #expect(attempts.count == 2)
    }

    @Test("A factory's missing dependency reaches the caller with the type and the contexts searched")
    func missingDependencyInFactory() {
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .singleton) { ctx in
                Connection(url: try ctx.require(Database.self).url)
            }
        }
        let error = #expect(throws: ContextError.self) { try app.child(name: "req").require(Connection.self) }
        #expect(error?.code == .missingObject)
        #expect(error?.requestedType?.hasSuffix("Database") == true)
        #expect(error?.searchedContexts == ["app"])
    }

    @Test("A singleton whose factory resolves a scoped object is reported as a captive dependency")
    func captiveDependency() {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(id: "t", log: log) }
            $0.provide(Connection.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(Transaction.self)
                return Connection(url: "captive")
            }
        }
        let error = #expect(throws: ContextError.self) { try app.child().require(Connection.self) }
        #expect(error?.code == .captiveDependency)
        #expect(error?.resolutionPath == ["Connection (singleton)", "Transaction (scoped)"])
    }

    @Test("require(keyPath) throws a key-path provider's failure instead of stopping the process")
    func requireKeyPathThrows() {
        let app = Context(name: "app") {
            $0.provide(\.httpClient, lifetime: .singleton) { _ in throw TestFailure(reason: "no TLS") }
        }
        let error = #expect(throws: ContextError.self) { try app.require(\.httpClient) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.message.contains("HTTPClientKey (singleton)") == true)
    }

    @Test("A key-path provider whose factory throws stops the process when read through the subscript")
    func keyPathProviderFailureIsHard() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(\.httpClient, lifetime: .singleton) { _ in throw TestFailure(reason: "no TLS") }
            }
            _ = app[\.httpClient]
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("the factory of 'HTTPClientKey (singleton)' threw: TestFailure(no TLS)"))
    }

    @Test("A configuring closure reads its parent's providers, which build for the parent")
    func configureReadsParentProviders() throws {
        let app = Context(name: "app") {
            $0.databaseURL = "postgres://app"
            $0.provide(Connection.self, lifetime: .singleton) { ctx in Connection(url: ctx[\.databaseURL]) }
        }
        var seenInConfigure: Connection?
        let request = app.child(name: "request") {
            $0.databaseURL = "postgres://request"
            seenInConfigure = $0.object(Connection.self)
        }
        #expect(seenInConfigure?.url == "postgres://app")
        #expect(seenInConfigure === (try request.require(Connection.self)))
    }

    @Test("A provider read inside the closure that registers it stops the process and says why, in a root")
    func providerReadWhileRegisteringInRoot() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Context(name: "app") {
                $0.provide(Connection.self, lifetime: .singleton) { _ in Connection(url: "postgres://app") }
                _ = $0.object(Connection.self)
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("'Connection (singleton)' was read inside the configuring closure that registers"))
        #expect(stderr.contains("Fix: read it once the context is made"))
    }

    @Test("A provider read inside the closure that registers it stops the process, below another provider too")
    func providerReadWhileRegisteringBelowProviders() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(Connection.self, lifetime: .singleton) { _ in Connection(url: "postgres://app") }
            }
            _ = app.child(name: "request") {
                $0.provide(Connection.self, lifetime: .transient) { _ in Connection(url: "postgres://request") }
                _ = $0.object(Connection.self)
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("'Connection (transient)' was read inside the configuring closure that registers"))
    }

    @Test("A hard resolve whose factory throws stops the process")
    func hardResolveOfFailingFactory() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(Connection.self, lifetime: .singleton) { _ in throw TestFailure(reason: "down") }
            }
            _ = app.resolve(Connection.self) as Connection
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("the factory of 'Connection (singleton)' threw: TestFailure(down)"))
        #expect(stderr.contains("Nothing was cached"))
    }
}
