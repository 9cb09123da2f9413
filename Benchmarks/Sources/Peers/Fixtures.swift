import Contextual
import Dependencies
import Swinject
import Synchronization

// MARK: - What every system resolves

/// The object resolved in every scenario: a class, so that every system pays the same retain/release.
public final class Database: Sendable {
    public let url: String
    public init(url: String = "postgres://localhost/bench") { self.url = url }
}

/// A per-request value.
public struct RequestID: Sendable, Hashable {
    public let value: Int
    public init(_ value: Int) { self.value = value }
}

// MARK: - Contextual

enum DatabaseKey: ContextKey {
    static var defaultValue: Database { Database(url: "default") }
}

enum RequestIDKey: ContextKey {
    static var defaultValue: RequestID { RequestID(0) }
}

enum FillerKey: ContextKey {
    static var defaultValue: Int { 0 }
}

extension ContextValues {
    var database: Database {
        get { self[DatabaseKey.self] }
        set { self[DatabaseKey.self] = newValue }
    }

    var requestID: RequestID {
        get { self[RequestIDKey.self] }
        set { self[RequestIDKey.self] = newValue }
    }

    var filler: Int {
        get { self[FillerKey.self] }
        set { self[FillerKey.self] = newValue }
    }
}

/// A service that reads the database through `@Injected`.
struct InjectedConsumer {
    @Injected(\.database) var database
    @Injected(Database.self) var databaseByType
}

enum ContextualFixture {
    static let database = Database()
    static let root = Context(name: "app") {
        $0.database = database
        $0.requestID = RequestID(0)
        $0.provide(database)
    }

    /// A root whose database is a lazy singleton, already built, and a request below it.
    static let lazyRoot: Context = {
        let root = Context(name: "app") {
            $0.provide(Database.self, lifetime: .singleton) { _ in Database() }
        }
        _ = root.resolve(Database.self) as Database
        return root
    }()
    static let lazyRequest = lazyRoot.child(name: "request") { $0.requestID = RequestID(1) }

    /// A root updated once after it was made, so that it reads a published state.
    static let updatedRoot: Context = {
        let root = Context(name: "app") {
            $0.database = database
            $0.requestID = RequestID(0)
        }
        root.update { $0.requestID = RequestID(1) }
        return root
    }()

    /// A chain of `depth` contexts below the root, each overriding another key.
    static func chain(depth: Int) -> Context {
        var context = root
        for level in 0..<depth { context = context.child(\.filler, level) }
        return context
    }
}

// MARK: - swift-dependencies

private enum DatabaseDependencyKey: DependencyKey {
    static let liveValue = Database()
}

private enum RequestIDDependencyKey: DependencyKey {
    static let liveValue = RequestID(0)
}

private enum FillerDependencyKey: DependencyKey {
    static let liveValue = 0
}

extension DependencyValues {
    var benchDatabase: Database {
        get { self[DatabaseDependencyKey.self] }
        set { self[DatabaseDependencyKey.self] = newValue }
    }

    var benchRequestID: RequestID {
        get { self[RequestIDDependencyKey.self] }
        set { self[RequestIDDependencyKey.self] = newValue }
    }

    var benchFiller: Int {
        get { self[FillerDependencyKey.self] }
        set { self[FillerDependencyKey.self] = newValue }
    }
}

struct DependencyConsumer {
    @Dependency(\.benchDatabase) var database
}

enum DependenciesFixture {
    /// Runs `body` inside `depth` nested `withDependencies` scopes, each overriding another key.
    static func nested<R>(depth: Int, _ body: () -> R) -> R {
        if depth == 0 { return body() }
        return withDependencies {
            $0.benchFiller = depth
        } operation: {
            nested(depth: depth - 1, body)
        }
    }
}

// MARK: - Swinject

enum SwinjectFixture {
    /// Swinject's `Container` is not `Sendable`; the scenarios use it from one thread at a time.
    nonisolated(unsafe) static let root: Container = {
        let container = Container()
        let database = Database()
        container.register(Database.self) { _ in database }.inObjectScope(.container)
        container.register(RequestID.self) { _ in RequestID(0) }.inObjectScope(.container)
        return container
    }()

    static func chain(depth: Int) -> Container {
        var container = root
        for level in 0..<depth {
            let child = Container(parent: container)
            child.register(Int.self) { _ in level }
            container = child
        }
        return container
    }
}

// MARK: - Baselines

/// A stored property holding the object: the floor.
final class Holder: Sendable {
    let database = Database()
    let requestID = RequestID(0)
}

enum BaselineFixture {
    static let holder = Holder()
    static let dictionary: [ObjectIdentifier: any Sendable] = [
        ObjectIdentifier(Database.self): Database(),
        ObjectIdentifier(RequestID.self): RequestID(0),
    ]
}
