// Reads inside `swift test`: a Contextual read in production and in a test context, and a swift-dependencies
// read of a key the test does not override, in the same test run. Prints a table, and checks that
// swift-dependencies' read there (which looks for the test runner at each read) costs more than a
// Contextual read in a test context. What a test-context read costs against a production one is counted
// in instructions by `contextual-count` (timings of a few nanoseconds swing with the machine's load).

import Contextual
import ContextualTesting
import Dependencies
import Testing

// MARK: - Keys

final class Client: Sendable {}

enum ClientKey: ContextKey {
    static var defaultValue: Client { Client() }
}

extension ContextValues {
    var client: Client {
        get { self[ClientKey.self] }
        set { self[ClientKey.self] = newValue }
    }
}

private enum ClientDependencyKey: DependencyKey {
    static let liveValue = Client()
    static let testValue = Client()
}

extension DependencyValues {
    var client: Client {
        get { self[ClientDependencyKey.self] }
        set { self[ClientDependencyKey.self] = newValue }
    }
}

struct ContextualReader {
    @Injected(\.client) var client
}

struct DependencyReader {
    @Dependency(\.client) var client
}

// MARK: - Measuring

/// Nanoseconds per call of `read`: the fastest of `rounds` rounds of `reads` calls.
func nanosecondsPerRead(reads: Int, rounds: Int, _ read: () -> Client) -> Double {
    var best = Double.infinity
    var seen = 0
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        for _ in 0..<reads where read() !== Client?.none { seen &+= 1 }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = min(best, seconds * 1e9 / Double(reads))
    }
    if seen == 0 { print("no reads") }
    return best
}

@Suite("Reads inside swift test")
struct InSwiftTestReadTests {
    @Test("A read in a test context costs less than swift-dependencies' read in the same test run")
    func reads() {
        let production = Context(name: "production")
        let test = Context.testing(name: "test")
        let productionReader = production.run { ContextualReader() }
        let testReader = test.run { ContextualReader() }
        let dependencyReader = DependencyReader()

        var productionRead = Double.infinity
        var testRead = Double.infinity
        var productionInjected = Double.infinity
        var testInjected = Double.infinity
        // Alternating rounds, so that a burst of other work slows both alike.
        for _ in 0..<11 {
            productionRead = min(productionRead, nanosecondsPerRead(reads: 100_000, rounds: 1) { production[\.client] })
            testRead = min(testRead, nanosecondsPerRead(reads: 100_000, rounds: 1) { test[\.client] })
            productionInjected = min(
                productionInjected,
                nanosecondsPerRead(reads: 100_000, rounds: 1) { productionReader.client }
            )
            testInjected = min(testInjected, nanosecondsPerRead(reads: 100_000, rounds: 1) { testReader.client })
        }
        let dependencyRead = nanosecondsPerRead(reads: 200, rounds: 5) { dependencyReader.client }

        #if DEBUG
        let configuration = "debug"
        #else
        let configuration = "release"
        #endif
        print(
            """
            reads inside swift test (\(configuration)), ns per read, fastest round:
            | read of a key no context sets | ns |
            |---|---:|
            | Contextual, context[\\.key], production | \(productionRead) |
            | Contextual, context[\\.key], test context | \(testRead) |
            | Contextual, @Injected, production | \(productionInjected) |
            | Contextual, @Injected, test context | \(testInjected) |
            | swift-dependencies, @Dependency | \(dependencyRead) |
            """
        )
        #expect(dependencyRead > testRead)
    }
}
