import Foundation
import Testing

@testable import Contextual

// One provider resolved under several types, sharing one object built once and shut down once.

private protocol AccountStore: Sendable { var id: Int { get } }
private protocol InvoiceStore: Sendable { var id: Int { get } }
private protocol Unrelated: Sendable {}

private final class PostgresStore: AccountStore, InvoiceStore, ScopeShutdown {
    let id: Int
    let log: Collector<String>

    init(id: Int, log: Collector<String>) {
        self.id = id
        self.log = log
    }

    func shutdown() async throws { log.append("shutdown \(id)") }
}

@Suite("Forwarding: one object under several types")
struct ForwardingTests {
    private func app(_ lifetime: Lifetime, builds: Counter, log: Collector<String>) -> Context {
        Context(name: "app") {
            $0.provide(PostgresStore.self, lifetime: lifetime) { _ in
                builds.increment()
                return PostgresStore(id: builds.count, log: log)
            }
            $0.forward(AccountStore.self, InvoiceStore.self, to: PostgresStore.self)
        }
    }

    @Test("A forwarded singleton is one object under every type, built once and shut down once")
    func singleton() async throws {
        let builds = Counter()
        let log = Collector<String>()
        let app = app(.singleton, builds: builds, log: log)
        let users = try app.child().require(AccountStore.self)
        let orders = try app.require(InvoiceStore.self)
        let store = try app.require(PostgresStore.self)
        #expect(users as AnyObject === store)
        #expect(orders as AnyObject === store)
        #expect(builds.count == 1)
        try await app.shutdown()
        #expect(log.all == ["shutdown 1"])
    }

    @Test("Concurrent first resolves through two forwarded types build the singleton once")
    func concurrentFirstResolves() async throws {
        for _ in 0..<20 {
            let builds = Counter()
            let gate = Gate()
            let app = Context(name: "app") {
                $0.provide(PostgresStore.self, lifetime: .singleton) { _ in
                    gate.wait()
                    builds.increment()
                    return PostgresStore(id: 1, log: Collector())
                }
                $0.forward(AccountStore.self, InvoiceStore.self, to: PostgresStore.self)
            }
            async let users = onThread {
                (try? app.require(AccountStore.self)).map { ObjectIdentifier($0 as AnyObject) }
            }
            async let orders = onThread {
                (try? app.require(InvoiceStore.self)).map { ObjectIdentifier($0 as AnyObject) }
            }
            try await Task.sleep(for: .milliseconds(2))
            gate.open()
            let (first, second) = await (users, orders)
            #expect(first != nil && first == second)
            #expect(builds.count == 1)
        }
    }

    @Test("A forwarded scoped object is one per scope, whatever type resolves it, shut down once")
    func scoped() async throws {
        let builds = Counter()
        let log = Collector<String>()
        let app = app(.scoped, builds: builds, log: log)
        let request = app.scope(name: "request")
        let users = try request.require(AccountStore.self)
        let orders = try request.require(InvoiceStore.self)
        #expect(users as AnyObject === orders as AnyObject)
        #expect(try request.require(PostgresStore.self) === users as AnyObject)
        let other = try app.scope(name: "other").require(InvoiceStore.self)
        #expect(other.id != users.id)
        try await request.shutdown()
        #expect(log.all == ["shutdown \(users.id)"])
        #expect(builds.count == 2)
    }

    @Test("A forwarded transient object is built on each resolve and shut down once with its scope")
    func transient() async throws {
        let builds = Counter()
        let log = Collector<String>()
        let app = app(.transient, builds: builds, log: log)
        let request = app.scope(name: "request")
        let first = try request.require(AccountStore.self)
        let second = try request.require(InvoiceStore.self)
        #expect(first.id != second.id)
        #expect(builds.count == 2)
        try await request.shutdown()
        #expect(log.all.sorted() == ["shutdown 1", "shutdown 2"])
    }

    @Test("A forwarded scoped object resolved by a singleton is a captive dependency")
    func captive() throws {
        struct Reporter: Sendable { let store: any AccountStore }
        let app = Context(name: "app") {
            $0.provide(PostgresStore.self, lifetime: .scoped) { _ in PostgresStore(id: 1, log: Collector()) }
            $0.forward(AccountStore.self, to: PostgresStore.self)
            $0.provide(Reporter.self, lifetime: .singleton) { try Reporter(store: $0.require(AccountStore.self)) }
        }
        #expect(throws: ContextError.self) { try app.scope(name: "request").require(Reporter.self) }
        do throws(ContextError) {
            _ = try app.scope(name: "request").require(Reporter.self)
        } catch {
            #expect(error.code == .captiveDependency)
        }
    }

    @Test("Forwarded to an object set as a value, each type holds that object")
    func value() throws {
        let store = PostgresStore(id: 7, log: Collector())
        let app = Context(name: "app") {
            $0.provide(PostgresStore.self, lifetime: .singleton) { _ in store }
        }
        let child = app.child {
            $0.forward(AccountStore.self, to: PostgresStore.self)
        }
        #expect(try child.require(AccountStore.self).id == 7)
        #expect(app.resolve(AccountStore.self) == nil)
    }

    @Test("Validation resolves forwardings and reports one whose object is not of the forwarded type")
    func validation() throws {
        let app = Context(name: "app") {
            $0.provide(PostgresStore.self, lifetime: .singleton) { _ in PostgresStore(id: 1, log: Collector()) }
            $0.forward(AccountStore.self, Unrelated.self, to: PostgresStore.self)
        }
        do throws(ContextError) {
            try app.validate()
            Issue.record("validation passed")
        } catch {
            #expect(error.code == .validationFailed)
            #expect(error.underlyingErrors.count == 1)
            let problem = error.underlyingErrors.first as? ContextError
            #expect(problem?.code == .factoryFailed)
            let message = problem?.message ?? ""
            #expect(message.contains("is not a 'Unrelated'"), "\(message)")
            #expect(message.components(separatedBy: "Fix:").count == 2, "one fix: \(message)")
            #expect(!message.contains(".."), "\(message)")
            #expect(message.contains("conform to 'Unrelated'"), "\(message)")
            #expect(!message.contains("make the factory succeed"), "\(message)")
        }
    }

    @Test("The wiring description says what a type is forwarded to")
    func description() throws {
        let app = app(.singleton, builds: Counter(), log: Collector())
        let text = app.wiringDescription
        #expect(text.contains("object AccountStore: singleton provider of AccountStore, forwarded to PostgresStore"))
        #expect(text.contains("object InvoiceStore: singleton provider of InvoiceStore, forwarded to PostgresStore"))
        _ = try app.require(AccountStore.self)
        #expect(app.wiringDescription.contains("forwarded to PostgresStore, built"))
    }

    @Test("A forwarding of an async provider is prepared through its type")
    func async() async throws {
        let app = Context(name: "app") {
            $0.provide(PostgresStore.self, lifetime: .singleton) { _ async in PostgresStore(id: 3, log: Collector()) }
            $0.forward(AccountStore.self, to: PostgresStore.self)
        }
        try app.validate()
        #expect(throws: ContextError.self) { try app.require(AccountStore.self) }
        let users = try await app.prepare(AccountStore.self)
        #expect(users.id == 3)
        #expect(try app.require(AccountStore.self).id == 3)
    }

    @Test("Once an async primary is prepared, its forwarded types resolve synchronously")
    func asyncPrimaryPrepared() async throws {
        let app = Context(name: "app") {
            $0.provide(PostgresStore.self, lifetime: .singleton) { _ async in PostgresStore(id: 4, log: Collector()) }
            $0.forward(AccountStore.self, InvoiceStore.self, to: PostgresStore.self)
        }
        let store = try await app.prepare(PostgresStore.self)
        #expect(try app.require(AccountStore.self) as AnyObject === store)
        try await app.prepare()
        #expect(try app.require(InvoiceStore.self) as AnyObject === store)
    }

    @Test("prepare() builds a forwarded scoped object once in its throwaway scope and shuts it down once")
    func prepareShutsDownOnce() async throws {
        let builds = Counter()
        let log = Collector<String>()
        let app = app(.scoped, builds: builds, log: log)
        try await app.prepare()
        #expect(builds.count == 1)
        #expect(log.all == ["shutdown 1"])
    }

    @Test("A context below can override one forwarded type and keep the others")
    func override() throws {
        final class Memory: AccountStore { var id: Int { 99 } }
        let app = app(.singleton, builds: Counter(), log: Collector())
        let test = app.child { $0.provide(AccountStore.self, lifetime: .singleton) { _ in Memory() } }
        #expect(try test.require(AccountStore.self).id == 99)
        #expect(try test.require(InvoiceStore.self).id == 1)
        #expect(test.wiringDescription.contains("overridden below"))
    }

    @Test("Concurrent first resolves of a scoped forwarding through two types in one scope build once")
    func concurrentScoped() async throws {
        for _ in 0..<20 {
            let builds = Counter()
            let gate = Gate()
            let app = Context(name: "app") {
                $0.provide(PostgresStore.self, lifetime: .scoped) { _ in
                    gate.wait()
                    builds.increment()
                    return PostgresStore(id: 1, log: Collector())
                }
                $0.forward(AccountStore.self, InvoiceStore.self, to: PostgresStore.self)
            }
            let request = app.scope(name: "request")
            async let users = onThread {
                (try? request.require(AccountStore.self)).map { ObjectIdentifier($0 as AnyObject) }
            }
            async let orders = onThread {
                (try? request.require(InvoiceStore.self)).map { ObjectIdentifier($0 as AnyObject) }
            }
            try await Task.sleep(for: .milliseconds(2))
            gate.open()
            let (first, second) = await (users, orders)
            #expect(first != nil && first == second)
            #expect(builds.count == 1)
        }
    }
}
