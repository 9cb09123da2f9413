import Contextual
import Testing

/// A provider finds the context that registered it on the asker's chain, which may go through an owned
/// member's weak link to its host.
@Suite("Providers inherited through an owned member")
struct MemberProviderTests {
    @Test("A scope below an owned member builds the host's scoped and singleton objects while the host lives")
    func providersThroughAnOwnedMember() throws {
        let host = Context(name: "host") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(id: "scoped", log: Collector<String>()) }
            $0.provide(Connection.self, lifetime: .singleton) { _ in Connection(url: "db://host") }
        }
        let member = host.member(name: "worker", ownership: .owned)
        let request = member.scope(name: "request")
        #expect(try request.require(Transaction.self).id == "scoped")
        #expect(try request.require(Connection.self) === host.require(Connection.self))
    }

    @Test("An owned member that outlived its host reads its providers as unavailable, naming them")
    func providersOfAHostThatIsGone() throws {
        var host: Context? = Context(name: "host") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(id: "scoped", log: Collector<String>()) }
            $0.provide(Connection.self, lifetime: .singleton) { _ in Connection(url: "db://host") }
        }
        let member = try #require(host?.member(name: "worker", ownership: .owned))
        weak let weakHost = host
        host = nil
        #expect(weakHost == nil)
        let request = member.scope(name: "request")
        let scoped = #expect(throws: ContextError.self) { try request.require(Transaction.self) }
        #expect(scoped?.code == .providerUnavailable)
        #expect(scoped?.message.contains("'Transaction (scoped)' was registered on a context that is gone") == true)
        let singleton = #expect(throws: ContextError.self) { try member.require(Connection.self) }
        #expect(singleton?.code == .providerUnavailable)
    }

    @Test("An owned member that outlived its host still reaches the providers registered above the host")
    func providersAboveAHostThatIsGone() throws {
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(id: "scoped", log: Collector<String>()) }
            $0.provide(Connection.self, lifetime: .singleton) { _ in Connection(url: "db://app") }
        }
        var host: Context? = app.child(name: "host")
        let member = try #require(host?.member(name: "worker", ownership: .owned))
        weak let weakHost = host
        host = nil
        #expect(weakHost == nil)
        #expect(member.parent == nil)
        // The singleton is the app's; a scoped object is built in a scope below the member.
        #expect(try member.require(Connection.self) === app.require(Connection.self))
        #expect(try member.scope(name: "request").require(Transaction.self).id == "scoped")
        // Without a scope below the host's registrar, as before the member outlived its host.
        let noScope = #expect(throws: ContextError.self) { try member.require(Transaction.self) }
        #expect(noScope?.code == .noScope)
    }
}
