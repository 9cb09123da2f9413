import Contextual
import Testing

// The ```swift blocks of Articles/GettingStarted.md, verbatim, and what their prose and comments claim.
// The keys declared here (config, requestID) are the ones the other articles use.

// MARK: - Declare a key per value

struct Config: Sendable {
    var databaseURL = "postgres://localhost/app"
    var verbose = false
}

enum ConfigKey: ContextKey {
    static var defaultValue: Config { Config() }
}

enum RequestIDKey: ContextKey {
    static var defaultValue: String { "-" }
}

extension ContextValues {
    var config: Config {
        get { self[ConfigKey.self] }
        set { self[ConfigKey.self] = newValue }
    }

    var requestID: String {
        get { self[RequestIDKey.self] }
        set { self[RequestIDKey.self] = newValue }
    }
}

extension Context {
    /// A dedicated modifier, like SwiftUI's `.lineLimit(2)`.
    func requestID(_ id: String) -> Context {
        child(\.requestID, id, name: "request \(id)")
    }
}

// MARK: - Read values with @Injected

final class Database: Sendable {
    let url: String
    init(url: String) { self.url = url }
}

final class Cache: Sendable {}
final class Metrics: Sendable {}

struct UserService {
    @Injected(\.requestID) var requestID
    @Injected(\.config) var config
    @Injected(Database.self) var database
    @Injected(Cache.self) var cache: Cache?

    func describe() -> String {
        "\(requestID) uses \(database.url)"
    }
}

// MARK: - Where @Injected can live

final class AuditTrail: Sendable {
    let requestID = Injected(\.requestID)

    func record(_ event: String) -> String {
        "\(requestID()): \(event)"
    }
}

@Suite("Getting started")
struct GettingStartedTests {
    @Test("A key that nobody sets reads as its default; a modifier derives a named child")
    func keys() {
        let root = Context(name: "root")
        #expect(root[\.requestID] == "-")
        #expect(root[\.config].databaseURL == "postgres://localhost/app")
        #expect(root[\.config].verbose == false)
        let request = root.requestID("7")
        #expect(request[\.requestID] == "7")
        #expect(request.name == "request 7")
        #expect(request.parent === root)
    }

    @Test("The app and request wiring, deriving, replacing and requiring read as the comments say")
    func wireAndDerive() {
        let printed = Lines()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let app = Context(name: "app") {
            $0.config.verbose = true
            $0.provide(Database(url: "postgres://localhost/app"))
        }

        let request = app.requestID("req-42")
        let service = request.run { UserService() }

        let description = service.describe()  // "req-42 uses postgres://localhost/app"
        let cache = service.cache  // nil: nobody provides a Cache
        let appID = app[\.requestID]  // "-": the override stays in the request's subtree
        let verbose = request[\.config].verbose  // true: inherited from the app

        #expect(description == "req-42 uses postgres://localhost/app")
        #expect(cache == nil)
        #expect(appID == "-")
        #expect(verbose)
        #expect(service.$database.context === request)

        let audited = request.child(transforming: \.config) { $0.verbose = false }
        let quiet = audited[\.config].verbose  // false; `request` still reads true

        app.update { $0.config.databaseURL = "postgres://replica/app" }
        let url = request[\.config].databaseURL  // the new URL: updates reach descendants
        let auditedURL = audited[\.config].databaseURL  // the new URL too: the transform applies again

        do {
            _ = try request.require(Metrics.self)
        } catch {
            print(error)  // names 'Metrics', the contexts searched ('request req-42' → 'app') and the fix
        }

        #expect(quiet == false)
        #expect(request[\.config].verbose)
        #expect(url == "postgres://replica/app")
        #expect(auditedURL == "postgres://replica/app")
        #expect(audited[\.config].verbose == false)
        #expect(service.config.databaseURL == "postgres://replica/app")
        #expect(printed.all.count == 1)
        let message = printed.all.first ?? ""
        #expect(message.contains("'Metrics'") || message.contains(".Metrics'"))
        #expect(message.contains("'request req-42' → 'app'"))
        #expect(message.contains("Fix:"))
        let error = #expect(throws: ContextError.self) { try request.require(Metrics.self) }
        #expect(error?.code == .missingObject)
        #expect(error?.searchedContexts == ["request req-42", "app"])

        let testing = request.child(providing: Database(url: "sqlite::memory:"), name: "test")
        let inMemory = testing.run { UserService() }.describe()  // "req-42 uses sqlite::memory:"
        let plain = request.child(name: "retry")  // overrides nothing: reads all that `request` holds

        request.update { $0.provide(Database(url: "postgres://request-only/app")) }
        let replaced = plain.resolve(Database.self)?.url  // "postgres://request-only/app": the update reaches it
        request.update { $0.removeObject(for: Database.self) }
        let restored = plain.resolve(Database.self)?.url  // "postgres://localhost/app": the app's shows again

        #expect(inMemory == "req-42 uses sqlite::memory:")
        #expect(plain.name == "retry")
        #expect(plain[\.requestID] == "req-42")
        #expect(replaced == "postgres://request-only/app")
        #expect(restored == "postgres://localhost/app")
        #expect(app.resolve(Database.self)?.url == "postgres://localhost/app")
    }

    @Test("resolve has a hard and an optional form, Swift picks the optional one, and require throws")
    func resolveForms() {
        let app = Context(name: "app") { $0.provide(Database(url: "postgres://localhost/app")) }
        let request = app.requestID("req-42")

        let database: Database = request.resolve(Database.self)  // stops the process if none is provided
        let maybeCache = request.resolve(Cache.self)  // Cache?: with no type to choose by, Swift picks this form
        let metrics = try? request.require(Metrics.self)  // nil here: require threw .missingObject

        #expect(database.url == "postgres://localhost/app")
        #expect(maybeCache == nil)
        #expect(type(of: maybeCache) == Cache?.self)
        #expect(metrics == nil)
        // Objects and keys never collide.
        let both = request.child(providing: "an object")
        #expect(both[\.requestID] == "req-42")
        #expect(both.resolve(String.self) == "an object")
    }

    @Test("The non-optional resolve of a type nobody provides stops the process, naming the type and fix")
    func hardResolveStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let request = Context(name: "app").requestID("req-1")
            let metrics: Metrics = request.resolve(Metrics.self)
            _ = metrics
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Metrics"))
        #expect(stderr.contains("'request req-1' → 'app'"))
        #expect(stderr.contains("Fix:"))
    }

    @Test("@Injected by type stops the process on first access when nobody provides the type")
    func injectedByTypeStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let service = Context(name: "empty").run { UserService() }
            _ = service.database
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Database"))
        #expect(stderr.contains("'empty'"))
    }

    @Test("An Injected binds to the context it is given, and Context.current flows into async let")
    func whichContext() async {
        let app = Context(name: "app") { $0.provide(Database(url: "postgres://localhost/app")) }
        let request = app.requestID("req-42")

        let explicit = Injected(\.requestID, from: request)
        let boundID = explicit()  // "req-42", wherever it is called
        let bound = explicit.context === request  // true

        let seenByChildTask = await request.run {
            async let id = Context.current[\.requestID]
            return await id
        }  // "req-42": the child task inherits the request as Context.current

        #expect(boundID == "req-42")
        #expect(bound)
        #expect(seenByChildTask == "req-42")
        #expect(Context.current === Context.root)
        let fromAnotherTask = await Task.detached { explicit() }.value
        #expect(fromAnotherTask == "req-42")
        // An Injected made outside any run binds to the root.
        #expect(Injected(\.requestID).context === Context.root)
        // Reads happen on every access: a later update is what the next access sees.
        request.update { $0.requestID = "req-43" }
        #expect(explicit() == "req-43")
    }

    @Test("A Sendable final class holds Injected as a constant and calls it")
    func injectedAsConstant() {
        let app = Context(name: "app")
        let request = app.requestID("req-42")

        let trail = request.run { AuditTrail() }
        let entry = trail.record("signed in")  // "req-42: signed in"

        #expect(entry == "req-42: signed in")
    }

    @Test("An override reaches descendants up to the next override of the key, never the parent or a sibling")
    func scopesRule() {
        let app = Context(name: "app") { $0.requestID = "app" }
        let a = app.child(\.requestID, "a")
        let sibling = app.child(name: "sibling")
        let grandchild = a.child(name: "grandchild")
        let reOverride = grandchild.child(\.requestID, "deep")
        #expect(grandchild[\.requestID] == "a")
        #expect(reOverride[\.requestID] == "deep")
        #expect(app[\.requestID] == "app")
        #expect(sibling[\.requestID] == "app")
        app.update { $0.removeValue(for: RequestIDKey.self) }
        #expect(sibling[\.requestID] == "-")
        #expect(grandchild[\.requestID] == "a")
    }
}
