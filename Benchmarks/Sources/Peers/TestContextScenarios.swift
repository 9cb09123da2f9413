import Contextual

// MARK: - Reads in a test context

/// A read of a key no context sets, by subscript, in production: the process-wide default.
public let productionUnsetReadGroup = "context[\\.key] of a key no context sets, production"
/// The same read in a test context (`Context.testing`): the test context's test value.
public let testUnsetReadGroup = "context[\\.key] of a key no context sets, test context"
/// A read of a `String` the root sets, by subscript, in production.
public let productionSetStringGroup = "context[\\.key] of a String the root sets, production"
/// The same read in a test context.
public let testSetStringGroup = "context[\\.key] of a String the root sets, test context"
/// A warm `@Injected` read of a key no context sets, in production.
public let productionInjectedUnsetGroup = "@Injected of a key no context sets, production"
/// The same read in a test context.
public let testInjectedUnsetGroup = "@Injected of a key no context sets, test context"

enum GreetingKey: ContextKey {
    static var defaultValue: String { "hello" }
}

extension ContextValues {
    var greeting: String {
        get { self[GreetingKey.self] }
        set { self[GreetingKey.self] = newValue }
    }
}

/// A service reading a key no context sets (a class: the read retains it, as a user's client would be).
struct UnsetKeyReader {
    @Injected(\.database) var database
}

/// The reads in a child of a production root, or of a test context made as tests make them: a test
/// context's read must cost within 2x of the production one (counted by `contextual-count`).
private func readScenarios(inTestContext: Bool) -> [Scenario] {
    @Sendable func context() -> Context {
        let setGreeting: (inout ContextValues) -> Void = { $0.greeting = "set by the root" }
        let root =
            inTestContext
            ? Context.testing(name: "test", onUnimplementedRead: { _ in }, setGreeting)
            : Context(name: "app", setGreeting)
        return root.child(name: "request")
    }
    return [
        Scenario(inTestContext ? testUnsetReadGroup : productionUnsetReadGroup, .contextual) {
            let context = context()
            consume(context[\.database])
            return { iterations in for _ in 0..<iterations { consume(context[\.database]) } }
        },
        Scenario(inTestContext ? testSetStringGroup : productionSetStringGroup, .contextual) {
            let context = context()
            consume(context[\.greeting])
            return { iterations in for _ in 0..<iterations { consume(context[\.greeting]) } }
        },
        Scenario(inTestContext ? testInjectedUnsetGroup : productionInjectedUnsetGroup, .contextual) {
            let reader = context().run { UnsetKeyReader() }
            consume(reader.database)
            return { iterations in for _ in 0..<iterations { consume(reader.database) } }
        },
    ]
}

/// The reads in production and in a test context: not among ``everyScenario`` (their allocations are none,
/// and package-benchmark times reads already), counted by `contextual-count` alone.
public let testContextScenarios = readScenarios(inTestContext: false) + readScenarios(inTestContext: true)
