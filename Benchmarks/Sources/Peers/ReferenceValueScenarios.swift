import Contextual
import Dependencies

// MARK: - Target d with the values users store

/// A root update of a `String`, then its first read at a different leaf of a 1,111-context tree each time.
public let updateStringFirstReadGroup =
    "update a String at the top of 1,111 contexts, then first read at a different leaf each time"

/// A steady `@Injected` read of a `String` at a leaf of a tree whose root was updated once.
public let steadyStringAfterUpdateGroup = "steady @Injected String at a leaf, after an update"

/// The same read in a tree never updated.
public let steadyStringNeverUpdatedGroup = "steady @Injected String at a leaf, never updated"

/// A steady `@Injected` read of a configuration struct (a `String`, an `Int`, a `Double`) after an update.
public let steadySettingsAfterUpdateGroup = "steady @Injected settings struct at a leaf, after an update"

/// The same read in a tree never updated.
public let steadySettingsNeverUpdatedGroup = "steady @Injected settings struct at a leaf, never updated"

/// Names long enough to live on the heap (a `String` of more than 15 UTF-8 bytes holds a reference), made
/// before the count: what is counted is the library's work, not the formatting of a name.
let requestNames: [String] = (0..<64).map { "request-\($0)-0f4c2a9e-7d1b-4c3e-9a55-1b2c3d4e5f60" }

/// A service's settings, as a configuration struct users store under a key.
struct ServiceSettings: Sendable {
    var name: String
    var port: Int
    var timeout: Double
}

enum RequestNameKey: ContextKey {
    static var defaultValue: String { "" }
}

enum ServiceSettingsKey: ContextKey {
    static var defaultValue: ServiceSettings { ServiceSettings(name: "", port: 0, timeout: 0) }
}

extension ContextValues {
    var requestName: String {
        get { self[RequestNameKey.self] }
        set { self[RequestNameKey.self] = newValue }
    }

    var serviceSettings: ServiceSettings {
        get { self[ServiceSettingsKey.self] }
        set { self[ServiceSettingsKey.self] = newValue }
    }
}

private enum RequestNameDependencyKey: DependencyKey {
    static let liveValue = ""
}

extension DependencyValues {
    var benchRequestName: String {
        get { self[RequestNameDependencyKey.self] }
        set { self[RequestNameDependencyKey.self] = newValue }
    }
}

/// The tree of target d, whose top sets a name and settings.
private func referenceValueTree() -> ContextTree {
    ContextTree {
        $0.requestName = requestNames[0]
        $0.serviceSettings = ServiceSettings(name: requestNames[0], port: 8080, timeout: 30)
    }
}

struct NameConsumer {
    @Injected(\.requestName) var requestName
}

struct SettingsConsumer {
    @Injected(\.serviceSettings) var settings
}

/// Target d with a `String` and a configuration struct: not among ``everyScenario`` (package-benchmark
/// times reads already), counted by `contextual-count` alone.
public let referenceValueScenarios: [Scenario] = [
    Scenario(updateStringFirstReadGroup, .contextual) {
        let tree = referenceValueTree()
        // One update, then every leaf read once: each leaf then holds a state of its own, as it does once
        // the loop below has reached it, so the count is the same at any number of iterations.
        tree.top.update { $0.requestName = requestNames[1] }
        for leaf in tree.leaves { consume(leaf[\.requestName]) }
        return { iterations in
            for index in 0..<iterations {
                tree.top.update { $0.requestName = requestNames[index % requestNames.count] }
                // A stride prime to the number of leaves: each read is at a leaf that did not read last.
                consume(tree.leaves[(index &* 379) % tree.leaves.count][\.requestName])
            }
        }
    },
    Scenario(updateStringFirstReadGroup, .dependencies) { iterations in
        for index in 0..<iterations {
            withDependencies {
                $0.benchRequestName = requestNames[index % requestNames.count]
            } operation: {
                @Dependency(\.benchRequestName) var requestName
                consume(requestName)
            }
        }
    },
    // The reads are written out, as in ``updateScenarios``: a closure around them would add its call to
    // both sides of the ratio.
    Scenario(steadyStringAfterUpdateGroup, .contextual) {
        let tree = referenceValueTree()
        tree.top.update { $0.requestName = requestNames[1] }
        let consumer = tree.leaf.run { NameConsumer() }
        // Warm: read twice (a property keeps its value from its second read on).
        consume(consumer.requestName)
        consume(consumer.requestName)
        return { iterations in
            withExtendedLifetime(tree) { for _ in 0..<iterations { consume(consumer.requestName) } }
        }
    },
    Scenario(steadyStringNeverUpdatedGroup, .contextual) {
        let tree = referenceValueTree()
        let consumer = tree.leaf.run { NameConsumer() }
        consume(consumer.requestName)
        consume(consumer.requestName)
        return { iterations in
            withExtendedLifetime(tree) { for _ in 0..<iterations { consume(consumer.requestName) } }
        }
    },
    Scenario(steadySettingsAfterUpdateGroup, .contextual) {
        let tree = referenceValueTree()
        tree.top.update { $0.serviceSettings.port = 8081 }
        let consumer = tree.leaf.run { SettingsConsumer() }
        consume(consumer.settings)
        consume(consumer.settings)
        return { iterations in
            withExtendedLifetime(tree) { for _ in 0..<iterations { consume(consumer.settings) } }
        }
    },
    Scenario(steadySettingsNeverUpdatedGroup, .contextual) {
        let tree = referenceValueTree()
        let consumer = tree.leaf.run { SettingsConsumer() }
        consume(consumer.settings)
        consume(consumer.settings)
        return { iterations in
            withExtendedLifetime(tree) { for _ in 0..<iterations { consume(consumer.settings) } }
        }
    },
]
