// The one-line wiring check, and providers overridden per test.

import Contextual
import ContextualTesting
import Testing

/// An app's wiring, as production code writes it: a function on the values, reusable in a test's trait.
enum AppWiring {
    static func wire(_ values: inout ContextValues) {
        values.provide((any Database).self, lifetime: .singleton) { _ in LiveDatabase() }
        values.provide(Connection.self, lifetime: .singleton) { context in
            Connection(number: context.resolve((any Database).self).name.count)
        }
    }
}

@Suite("Wiring in tests")
struct WiringTests {
    @Test(
        "A test reuses the production wiring and overrides one provider, inner wins",
        .context { AppWiring.wire(&$0) },
        .context { $0.provide((any Database).self, lifetime: .singleton) { _ in FakeDatabase() } }
    )
    func overrideAProvider() {
        #expect(Context.current.resolve((any Database).self).name == "fake")
        #expect(Context.current.resolve(Connection.self).number == 4)
    }

    @Test("The wiring check is one line", .context { AppWiring.wire(&$0) })
    func validWiring() throws {
        #expect(expectValidWiring())
        #expect(throws: Never.self) { try Context.current.validate() }
    }

    @Test("The async wiring check builds async providers first: a scoped provider requiring one passes")
    func validAsyncWiring() async {
        let app = Context.testing(name: "app") {
            $0.provide(AsyncConnectionPool.self, lifetime: .singleton) { _ async in AsyncConnectionPool() }
            $0.provide(Connection.self, lifetime: .scoped) { context in
                Connection(number: context.resolve(AsyncConnectionPool.self).size)
            }
        }
        #expect(await expectValidWiring(app))
        #expect(app.resolve(AsyncConnectionPool.self).size == 8)
    }

    @Test("The async wiring check records an issue naming the factory that failed")
    func invalidAsyncWiring() async {
        let broken = Context.testing(name: "broken") {
            $0.provide(AsyncConnectionPool.self, lifetime: .singleton) { _ async throws in throw PoolError() }
        }
        await withKnownIssue {
            #expect(!(await expectValidWiring(broken)))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("AsyncConnectionPool") }
        }
    }

    @Test("The wiring check records an issue naming what is missing")
    func invalidWiring() {
        let broken = Context.testing(name: "broken") {
            $0.provide(Connection.self, lifetime: .singleton) { context in
                Connection(number: try context.require((any Database).self).name.count)
            }
        }
        withKnownIssue {
            #expect(!expectValidWiring(broken))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("Database") }
        }
    }
}

/// A pool whose factory is async, built at boot by `prepare()`.
final class AsyncConnectionPool: Sendable {
    let size = 8
}

struct PoolError: Error {}
