import Foundation
import Testing

@testable import Contextual

// Every provider added for a type, resolved together, root first.

private protocol HealthCheck: Sendable { var name: String { get } }

private final class Check: HealthCheck, ScopeShutdown {
    let name: String
    let log: Collector<String>

    init(_ name: String, log: Collector<String> = Collector()) {
        self.name = name
        self.log = log
    }

    func shutdown() async throws { log.append("shutdown \(name)") }
}

@Suite("Every provider of a type")
struct AllProvidersTests {
    @Test("Providers are resolved root first, in the order they were added, each with its lifetime")
    func order() throws {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in
                builds.increment()
                return Check("database")
            }
            $0.addProvider(HealthCheck.self, lifetime: .transient) { _ in Check("disk") }
        }
        let module = app.child(name: "module") {
            $0.addProvider(HealthCheck.self, lifetime: .scoped) { _ in Check("queue") }
        }
        let request = module.scope(name: "request")
        #expect(try request.requireAll(HealthCheck.self).map(\.name) == ["database", "disk", "queue"])
        #expect(app.resolveAll(HealthCheck.self).map(\.name) == ["database", "disk"])
        let first = try request.requireAll(HealthCheck.self)
        let second = try request.requireAll(HealthCheck.self)
        #expect(first[0] as AnyObject === second[0] as AnyObject)  // singleton
        #expect(first[1] as AnyObject !== second[1] as AnyObject)  // transient
        #expect(first[2] as AnyObject === second[2] as AnyObject)  // scoped: one per scope
        #expect(builds.count == 1)
    }

    @Test("None added gives an empty list; provide and addProvider are independent")
    func independent() throws {
        let app = Context(name: "app") {
            $0.provide(HealthCheck.self, lifetime: .singleton) { _ in Check("single") }
        }
        #expect(try app.requireAll(HealthCheck.self).isEmpty)
        let child = app.child { $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in Check("added") } }
        #expect(try child.require(HealthCheck.self).name == "single")
        #expect(try child.requireAll(HealthCheck.self).map(\.name) == ["added"])
    }

    @Test("A failing provider fails requireAll with its error")
    func failure() {
        let app = Context(name: "app") {
            $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in Check("ok") }
            $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ -> Check in throw TestFailure(reason: "down") }
        }
        do throws(ContextError) {
            _ = try app.requireAll(HealthCheck.self)
            Issue.record("no error")
        } catch {
            #expect(error.code == .factoryFailed)
        }
        #expect(throws: ContextError.self) { try app.validate() }
    }

    @Test("Each object is shut down once, by the context that owns it")
    func shutdown() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in Check("pool", log: log) }
            $0.addProvider(HealthCheck.self, lifetime: .scoped) { _ in Check("tx", log: log) }
        }
        let request = app.scope(name: "request")
        _ = try request.requireAll(HealthCheck.self)
        _ = try request.requireAll(HealthCheck.self)
        try await request.shutdown()
        #expect(log.all == ["shutdown tx"])
        try await app.shutdown()
        #expect(log.all == ["shutdown tx", "shutdown pool"])
    }

    @Test("Validation builds every provider added, and the wiring description lists them")
    func validation() throws {
        let builds = Counter()
        let app = Context(name: "app") {
            $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in
                builds.increment()
                return Check("a")
            }
            $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in
                builds.increment()
                return Check("b")
            }
        }
        let child = app.child(name: "child") {
            $0.addProvider(HealthCheck.self, lifetime: .transient) { _ in Check("c") }
        }
        try child.validate()
        #expect(builds.count == 2)
        let text = child.wiringDescription
        let built = "singleton provider of HealthCheck, built"
        #expect(text.contains("all HealthCheck: 2 providers along the chain, added here: \(built); \(built)"))
        #expect(text.contains("all HealthCheck: 3 providers along the chain, added here: transient provider of"))
    }

    @Test("prepare() builds every provider added, each object shut down once")
    func prepare() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.addProvider(HealthCheck.self, lifetime: .scoped) { _ in Check("first", log: log) }
            $0.addProvider(HealthCheck.self, lifetime: .scoped) { _ in Check("second", log: log) }
        }
        try await app.prepare()
        #expect(log.all == ["shutdown second", "shutdown first"])
    }

    @Test("update adds a provider after those added before; a child with its own list keeps what it copied")
    func update() throws {
        let app = Context(name: "app") {
            $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in Check("first") }
        }
        let plain = app.child(name: "plain")
        let own = app.child(name: "own") {
            $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in Check("own") }
        }
        app.update { $0.addProvider(HealthCheck.self, lifetime: .singleton) { _ in Check("second") } }
        #expect(try app.requireAll(HealthCheck.self).map(\.name) == ["first", "second"])
        #expect(try plain.requireAll(HealthCheck.self).map(\.name) == ["first", "second"])
        #expect(try own.requireAll(HealthCheck.self).map(\.name) == ["first", "own"])
    }
}

@Suite("Providers added for one type share a buffer without seeing each other's")
struct ProviderListSharingTests {
    @Test("Contexts that add to the same inherited list, and updates, each see their own providers only")
    func siblingsAndUpdatesKeepTheirOwn() throws {
        let app = Context(name: "app") { values in
            for index in 0..<3 { values.addProvider(String.self, lifetime: .transient) { _ in "app \(index)" } }
        }
        let first = app.child { $0.addProvider(String.self, lifetime: .transient) { _ in "first" } }
        let second = app.child { values in
            values.addProvider(String.self, lifetime: .transient) { _ in "second a" }
            values.addProvider(String.self, lifetime: .transient) { _ in "second b" }
        }
        app.update { $0.addProvider(String.self, lifetime: .transient) { _ in "app 3" } }
        // An update that runs its body and is kept: what it appended is seen once.
        first.update { $0.addProvider(String.self, lifetime: .transient) { _ in "first again" } }
        #expect(try app.requireAll(String.self) == ["app 0", "app 1", "app 2", "app 3"])
        #expect(try first.requireAll(String.self) == ["app 0", "app 1", "app 2", "first", "first again"])
        #expect(try second.requireAll(String.self) == ["app 0", "app 1", "app 2", "second a", "second b"])
    }
}
