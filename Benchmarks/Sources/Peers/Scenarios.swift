import Contextual
import Dependencies
import Swinject
import Synchronization

// MARK: - All scenarios

/// Every scenario, for every system that can do it, in table order.
public let allScenarios: [Scenario] = warmResolve + depth + requestScope + lazySingleton + observation + afterUpdate

/// The warm-resolve scenario the ratio targets are checked on.
public let flagshipGroup = "@Injected key path, root"

/// The request-scope scenario the ratio and allocation targets are checked on.
public let requestScopeGroup = "request scope: child { } + 2 resolves"

// MARK: - Baselines and peers for a warm resolve

private func peersForWarmResolve(_ group: String) -> [Scenario] {
    [
        Scenario(group, .dependencies) {
            let consumer = DependencyConsumer()
            return { iterations in for _ in 0..<iterations { consume(consumer.database) } }
        },
        Scenario(group, .swinject) {
            nonisolated(unsafe) let container = SwinjectFixture.root  // used from one thread at a time
            return { iterations in for _ in 0..<iterations { consume(container.resolve(Database.self)!) } }
        },
    ] + baselines(group)
}

private func baselines(_ group: String) -> [Scenario] {
    [
        Scenario(group, .storedProperty) { iterations in
            let holder = BaselineFixture.holder
            for _ in 0..<iterations { consume(holder.database) }
        },
        Scenario(group, .dictionary) { iterations in
            let dictionary = BaselineFixture.dictionary
            for _ in 0..<iterations {
                consume(dictionary[ObjectIdentifier(Database.self)] as! Database)
            }
        },
    ]
}

// MARK: - 1. Warm resolve of a value set at the root

private let warmResolve: [Scenario] =
    [
        Scenario("@Injected key path, root", .contextual) {
            let consumer = ContextualFixture.root.run { InjectedConsumer() }
            // Warm: read twice (a property keeps its value from its second read on).
            consume(consumer.database)
            consume(consumer.database)
            return { iterations in for _ in 0..<iterations { consume(consumer.database) } }
        }
    ] + peersForWarmResolve("@Injected key path, root")
    + [
        Scenario("@Injected by type, root", .contextual) {
            let consumer = ContextualFixture.root.run { InjectedConsumer() }
            // Warm: read twice (a property keeps its value from its second read on).
            consume(consumer.databaseByType)
            consume(consumer.databaseByType)
            return { iterations in for _ in 0..<iterations { consume(consumer.databaseByType) } }
        }
    ] + peersForWarmResolve("@Injected by type, root")
    + [
        Scenario("context[\\.keyPath], root", .contextual) { iterations in
            let context = ContextualFixture.root
            for _ in 0..<iterations { consume(context[\.database]) }
        }
    ] + peersForWarmResolve("context[\\.keyPath], root")
    + [
        Scenario("resolve(Type.self), root", .contextual) { iterations in
            let context = ContextualFixture.root
            for _ in 0..<iterations { consume(context.resolve(Database.self) as Database) }
        }
    ] + peersForWarmResolve("resolve(Type.self), root")

// MARK: - 2. The same from deep in a chain

/// The depths measured.
public let depths = [1, 16, 64]

private let depth: [Scenario] = depths.flatMap { depth -> [Scenario] in
    let group = "@Injected key path, depth \(depth)"
    return [
        Scenario(group, .contextual) {
            let context = ContextualFixture.chain(depth: depth)
            let consumer = context.run { InjectedConsumer() }
            // Warm: read twice (a property keeps its value from its second read on).
            consume(consumer.database)
            consume(consumer.database)
            return { iterations in
                withExtendedLifetime(context) { for _ in 0..<iterations { consume(consumer.database) } }
            }
        },
        Scenario(group, .dependencies) { iterations in
            DependenciesFixture.nested(depth: depth) {
                let consumer = DependencyConsumer()
                for _ in 0..<iterations { consume(consumer.database) }
            }
        },
        Scenario(group, .swinject) {
            nonisolated(unsafe) let container = SwinjectFixture.chain(depth: depth)  // one thread at a time
            return { iterations in for _ in 0..<iterations { consume(container.resolve(Database.self)!) } }
        },
    ] + baselines(group)
}

// MARK: - 3. A request scope

private let requestScope: [Scenario] = {
    let group = requestScopeGroup
    return [
        Scenario(group, .contextual) { iterations in
            let root = ContextualFixture.root
            for index in 0..<iterations {
                let request = root.child { $0.requestID = RequestID(index) }
                consume(request[\.requestID])
                consume(request[\.database])
            }
        },
        // The one-value form writes through a `WritableKeyPath`, whose runtime allocates a buffer for a
        // computed property: reported on its own row.
        Scenario("request scope, child(\\.key, value) form", .contextual) { iterations in
            let root = ContextualFixture.root
            for index in 0..<iterations {
                let request = root.child(\.requestID, RequestID(index))
                consume(request[\.requestID])
                consume(request[\.database])
            }
        },
        Scenario(group, .dependencies) { iterations in
            for index in 0..<iterations {
                withDependencies {
                    $0.benchRequestID = RequestID(index)
                } operation: {
                    @Dependency(\.benchRequestID) var requestID
                    @Dependency(\.benchDatabase) var database
                    consume(requestID)
                    consume(database)
                }
            }
        },
        Scenario(group, .swinject) { iterations in
            let root = SwinjectFixture.root
            for index in 0..<iterations {
                let request = Container(parent: root)
                request.register(RequestID.self) { _ in RequestID(index) }
                consume(request.resolve(RequestID.self)!)
                consume(request.resolve(Database.self)!)
            }
        },
        Scenario(group, .storedProperty) { iterations in
            let holder = BaselineFixture.holder
            for index in 0..<iterations {
                let request = (requestID: RequestID(index), database: holder.database)
                consume(request.requestID)
                consume(request.database)
            }
        },
        Scenario(group, .dictionary) { iterations in
            let base = BaselineFixture.dictionary
            for index in 0..<iterations {
                var request = base
                request[ObjectIdentifier(RequestID.self)] = RequestID(index)
                consume(request[ObjectIdentifier(RequestID.self)] as! RequestID)
                consume(request[ObjectIdentifier(Database.self)] as! Database)
            }
        },
    ]
}()

// MARK: - 4. A lazy singleton

/// The lazy-singleton scenario whose first resolve is measured.
public let lazyFirstGroup = "lazy singleton, first resolve"

private let lazySingleton: [Scenario] =
    [
        // A new container each time, registering a factory, then the first resolve, which builds.
        Scenario(lazyFirstGroup, .contextual) { iterations in
            for _ in 0..<iterations {
                let app = Context { $0.provide(Database.self, lifetime: .singleton) { _ in Database() } }
                consume(app.resolve(Database.self) as Database)
            }
        },
        Scenario(lazyFirstGroup, .swinject) { iterations in
            for _ in 0..<iterations {
                let container = Container()
                container.register(Database.self) { _ in Database() }.inObjectScope(.container)
                consume(container.resolve(Database.self)!)
            }
        },
        Scenario(lazyFirstGroup, .storedProperty) { iterations in
            for _ in 0..<iterations { consume(LazyHolder().database) }
        },
        // Once built, from a request below the registering context.
        Scenario("lazy singleton, warm resolve from a request", .contextual) { iterations in
            let request = ContextualFixture.lazyRequest
            for _ in 0..<iterations { consume(request.resolve(Database.self) as Database) }
        },
        Scenario("lazy singleton, warm @Injected from a request", .contextual) {
            let consumer = ContextualFixture.lazyRequest.run { InjectedConsumer() }
            // Warm: read twice (a property keeps its value from its second read on).
            consume(consumer.databaseByType)
            consume(consumer.databaseByType)
            return { iterations in for _ in 0..<iterations { consume(consumer.databaseByType) } }
        },
    ] + peersForWarmResolve("lazy singleton, warm resolve from a request")
    + peersForWarmResolve("lazy singleton, warm @Injected from a request")

/// A lazily built stored property: the floor for a first resolve.
final class LazyHolder {
    lazy var database = Database()
}

// MARK: - 6. Observation

/// An observable model for the notify benchmarks.
final class Counter: ObservableModel, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    @Observed var value = 0
}

/// A locked value with plain callbacks: what notifying costs without a registry.
final class LockedCallbacks: Sendable {
    let value = Mutex(0)
    let callbacks: [@Sendable (Int) -> Void]

    init(count: Int) {
        callbacks = (0..<count).map { _ in { consume($0) } }
    }

    func write(_ newValue: Int) {
        value.withLock { $0 = newValue }
        for callback in callbacks { callback(newValue) }
    }
}

/// The subscriber counts of the notify benchmarks.
public let subscriberCounts = [0, 1, 100]

private let observation: [Scenario] =
    subscriberCounts.flatMap { subscribers -> [Scenario] in
        let group = "notify, \(subscribers) subscriber\(subscribers == 1 ? "" : "s")"
        return [
            Scenario(group, .contextual) {
                let counter = Counter()
                let tokens = (0..<subscribers).map { _ in counter.observe(\.value) { consume($0) } }
                return { iterations in
                    // Starts at 1 each run, after a run that ended higher: every write is a change.
                    for index in 0..<iterations { counter.value = index &+ 1 }
                    consume(tokens)
                }
            },
            Scenario(group, .storedProperty) {
                let model = LockedCallbacks(count: subscribers)
                return { iterations in for index in 0..<iterations { model.write(index &+ 1) } }
            },
        ]
    } + [
        Scenario("observed read, nobody tracking", .contextual) {
            let counter = Counter()
            return { iterations in for _ in 0..<iterations { consume(counter.value) } }
        },
        Scenario("observed read, nobody tracking", .storedProperty) {
            let model = LockedCallbacks(count: 0)
            return { iterations in for _ in 0..<iterations { consume(model.value.withLock { $0 }) } }
        },
    ]

// MARK: - 5. Two threads

/// Reads of a shared context's value type through `@Injected`, for the two-thread throughput check: a
/// value, because every thread retaining one shared object measures the processor's cache-line traffic
/// on that object's reference count, not the container (the comparator reports that case too).
public enum TwoThreadFixture {
    static let consumer = ContextualFixture.root.run { RequestConsumer() }

    public static func run(_ iterations: Int) {
        let consumer = consumer
        for _ in 0..<iterations { consume(consumer.requestID) }
    }
}

struct RequestConsumer {
    @Injected(\.requestID) var requestID
}

// MARK: - 7. Reads after an update (no target)

/// Reads of a context whose values were updated after it was made: from then on it reads a published
/// state, inside a read section, instead of the values it was made with.
private let afterUpdate: [Scenario] =
    [
        Scenario("context[\\.keyPath], after an update", .contextual) { iterations in
            let context = ContextualFixture.updatedRoot
            for _ in 0..<iterations { consume(context[\.database]) }
        }
    ] + baselines("context[\\.keyPath], after an update")
    + [
        Scenario("@Injected key path, after an update", .contextual) {
            let consumer = ContextualFixture.updatedRoot.run { InjectedConsumer() }
            // Warm: read twice (a property keeps its value from its second read on).
            consume(consumer.database)
            consume(consumer.database)
            return { iterations in for _ in 0..<iterations { consume(consumer.database) } }
        }
    ] + baselines("@Injected key path, after an update")
