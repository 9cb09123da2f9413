import Contextual
import Dependencies

// MARK: - Updates in a tree (target d)

/// A root update, then the first read at a leaf of a 1,111-context tree.
public let updateFirstReadGroup = "update at the top of 1,111 contexts, then first read at a leaf"

/// A steady `@Injected` read at a leaf of a tree whose root was updated once.
public let steadyAfterUpdateGroup = "steady @Injected at a leaf, after an update"

/// The same read in a tree never updated.
public let steadyNeverUpdatedGroup = "steady @Injected at a leaf, never updated"

/// A tree of 1,111 contexts: the top, 10 below it, 100 below those, and 1,000 leaves, each overriding a
/// value of its own. Made in a scenario's set-up.
final class ContextTree: Sendable {
    let top: Context
    let leaves: [Context]

    /// A tree whose top sets what `configure` sets (by default, the database and a request ID).
    init(
        configure: (inout ContextValues) -> Void = {
            $0.database = ContextualFixture.database
            $0.requestID = RequestID(0)
        }
    ) {
        top = Context(name: "app", configure)
        var level = [top]
        for _ in 0..<3 {
            level = level.flatMap { parent in (0..<10).map { parent.child(\.filler, $0) } }
        }
        leaves = level
    }

    /// A leaf in the middle of the tree.
    var leaf: Context { leaves[leaves.count / 2] }
}

struct LeafConsumer {
    @Injected(\.requestID) var requestID
}

let updateScenarios: [Scenario] = [
    Scenario(updateFirstReadGroup, .contextual) {
        let tree = ContextTree()
        return { iterations in
            let leaf = tree.leaf
            for index in 0..<iterations {
                tree.top.update { $0.requestID = RequestID(index) }
                consume(leaf[\.requestID])
            }
        }
    },
    // swift-dependencies changes a value for what runs inside a per-request override: its equivalent of
    // an update that what runs below then reads.
    Scenario(updateFirstReadGroup, .dependencies) { iterations in
        for index in 0..<iterations {
            withDependencies {
                $0.benchRequestID = RequestID(index)
            } operation: {
                @Dependency(\.benchRequestID) var requestID
                consume(requestID)
            }
        }
    },
    Scenario(steadyAfterUpdateGroup, .contextual) {
        let tree = ContextTree()
        tree.top.update { $0.requestID = RequestID(1) }
        let consumer = tree.leaf.run { LeafConsumer() }
        // Warm: read twice (a property keeps its value from its second read on).
        consume(consumer.requestID)
        consume(consumer.requestID)
        return { iterations in
            withExtendedLifetime(tree) { for _ in 0..<iterations { consume(consumer.requestID) } }
        }
    },
    Scenario(steadyNeverUpdatedGroup, .contextual) {
        let tree = ContextTree()
        let consumer = tree.leaf.run { LeafConsumer() }
        // Warm: read twice (a property keeps its value from its second read on).
        consume(consumer.requestID)
        consume(consumer.requestID)
        return { iterations in
            withExtendedLifetime(tree) { for _ in 0..<iterations { consume(consumer.requestID) } }
        }
    },
]
