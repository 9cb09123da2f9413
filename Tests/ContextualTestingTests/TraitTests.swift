// The `.context` traits: on tests and suites, recursively, merged in order with the inner one winning.

import Contextual
import ContextualTesting
import Testing

@Suite(
    "Context traits",
    .context { values in
        values.requestNumber = 1
        values.greeting = "suite"
    }
)
struct TraitTests {
    @Test("A suite's trait runs each of its tests in a test context that sets its values")
    func suiteTrait() {
        #expect(Context.current.isTesting)
        #expect(Context.current[\.requestNumber] == 1)
        #expect(Context.current[\.greeting] == "suite")
    }

    @Test("A test's trait merges with its suite's, and the inner one wins", .context(\.greeting, "test"))
    func mergesWithTheSuite() {
        #expect(Context.current[\.requestNumber] == 1)
        #expect(Context.current[\.greeting] == "test")
    }

    @Test(
        "A trait applied twice merges in order: the later one wins",
        .context(\.requestNumber, 2),
        .context { values in
            values.requestNumber = 3
            values.greeting = "second"
        }
    )
    func appliedTwice() {
        #expect(Context.current[\.requestNumber] == 3)
        #expect(Context.current[\.greeting] == "second")
    }

    @Test("@Injected made during the test and library code reading the current context see the test's values")
    func injectedAndLibraryCode() {
        let greeter = Greeter()
        #expect(greeter.greeting == "suite")
        #expect(greeter.requestNumber == 1)
        #expect(libraryGreeting() == "suite")
    }

    @Test("Child tasks and async let inherit the test's context")
    func childTasks() async {
        async let fromChild = Context.current[\.greeting]
        let fromGroup = await withTaskGroup(of: Int.self) { group in
            group.addTask { Context.current[\.requestNumber] }
            return await group.reduce(0, +)
        }
        #expect(await fromChild == "suite")
        #expect(fromGroup == 1)
    }

    @Test("Each case of a parameterized test runs in a context of its own", arguments: 1...4)
    func eachCase(number: Int) async {
        Context.current.update { $0.requestNumber += number }
        await Task.yield()
        #expect(Context.current[\.requestNumber] == 1 + number)
    }

    @Suite("Nested suite", .context(\.greeting, "nested"))
    struct Nested {
        @Test("Nested suites apply their traits recursively, outermost first")
        func nested() {
            #expect(Context.current[\.requestNumber] == 1)
            #expect(Context.current[\.greeting] == "nested")
        }
    }
}

/// Counts the test values `OverriddenKey` computed: no test reads it, so a trait that sets it must not
/// compute one either.
private let overriddenTestValues = Counter()

private enum OverriddenKey: ContextKey {
    static var defaultValue: String { "live" }
    static var testValue: String {
        overriddenTestValues.increment()
        return "test"
    }
}

extension ContextValues {
    fileprivate var overridden: String {
        get { self[OverriddenKey.self] }
        set { self[OverriddenKey.self] = newValue }
    }
}

@Suite("A key path trait")
struct KeyPathTraitTests {
    @Test(
        "A .context(\\.key, value) trait sets the value without reading the one it replaces",
        .context(\.overridden, "set")
    )
    func setsWithoutReading() {
        #expect(Context.current[\.overridden] == "set")
        #expect(overriddenTestValues.value == 0)
    }
}

@Suite("A key path trait's value, made for each test", .context(\.callCounter, CallCounter()))
struct KeyPathTraitValuePerTestTests {
    @Test("Each case of a parameterized test gets a value of its own: a counter starts at 1 in each", arguments: 1...4)
    func freshValuePerCase(_ number: Int) {
        #expect(Context.current[\.callCounter].next() == 1, "case \(number) shares its counter")
    }

    @Test("Two tests of the suite get a value each (1)")
    func first() {
        #expect(Context.current[\.callCounter].next() == 1)
    }

    @Test("Two tests of the suite get a value each (2)")
    func second() {
        #expect(Context.current[\.callCounter].next() == 1)
    }
}

@Suite("Without a context trait")
struct NoTraitTests {
    @Test("A test without a context trait runs in the process-wide root, which reads test values, not production")
    func production() {
        #expect(!Context.current.isTesting)
        #expect(Context.current === Context.root)
        #expect(Context.current[\.greeting] == "test")
        #expect(Context.live()[\.greeting] == "production")
    }
}
