// Isolation: parallel tests never see each other's overrides, providers, singletons or defaults.

import Contextual
import ContextualTesting
import Testing

@Suite("Isolation between tests", .context { _ in })
struct IsolationTests {
    @Test("A stateful default returns 1 in each test, however many run at once", arguments: 0..<16)
    func countingDefault(_ index: Int) async {
        let counter = Context.current[\.callCounter]
        await Task.yield()
        #expect(counter.next() == 1)
        // Computed once per test context: every read of it, and every context derived from it, shares it.
        #expect(Context.current[\.callCounter] === counter)
        #expect(Context.current.child()[\.callCounter] === counter)
    }

    @Test("Parallel tests never see each other's changes to their context", arguments: 0..<16)
    func overrides(_ index: Int) async throws {
        Context.current.update { $0.requestNumber = index }
        try await Task.sleep(for: .milliseconds(index % 4))
        #expect(Context.current[\.requestNumber] == index)
        #expect(Greeter().requestNumber == index)
    }

    @Test("Parallel tests build their own singletons, each from its own defaults", arguments: 0..<8)
    func singletons(_ index: Int) async throws {
        let context = Context.current.child {
            $0.provide(Connection.self, lifetime: .singleton) { context in
                Connection(number: context[\.callCounter].next())
            }
        }
        await Task.yield()
        #expect(context.resolve(Connection.self).number == 1)
        #expect(context.resolve(Connection.self) === context.resolve(Connection.self))
    }

    @Test("A key's test value replaces its default in a test context, and defaults to it")
    func testValues() {
        #expect(Context.current[\.greeting] == "test")
        #expect(Context.current[\.requestNumber] == 0)
        let values = Context.testing { values in
            // The configuring closure reads test values too.
            values.requestNumber = values.greeting.count
        }
        #expect(values[\.requestNumber] == 4)
        #expect(Context.testing()[\.greeting] == "test")
        #expect(Context.testing().child(name: "request")[\.greeting] == "test")
    }

    @Test("Two test contexts compute their defaults apart")
    func twoContexts() {
        let first = Context.testing(name: "first")
        let second = Context.testing(name: "second")
        #expect(first[\.callCounter] !== second[\.callCounter])
        #expect(first[\.callCounter] === first.child()[\.callCounter])
    }

    @Test(
        "Objects and providers are overridden per test",
        .context { $0.provide(LiveDatabase(), as: (any Database).self) },
        .context { $0.provide(FakeDatabase(), as: (any Database).self) }
    )
    func objects() {
        #expect(Context.current.resolve((any Database).self).name == "fake")
        #expect(Context.root.resolve((any Database).self) == nil)
    }
}

@Suite("Production defaults")
struct ProductionDefaultTests {
    @Test("Outside test contexts, a default is computed once per process, as before")
    func oncePerProcess() {
        #expect(Context(name: "a")[\.callCounter] === Context(name: "b")[\.callCounter])
        #expect(Context.root[\.callCounter] === Context(name: "c").child()[\.callCounter])
        #expect(Context(name: "d")[\.callCounter] !== Context.testing()[\.callCounter])
    }
}
