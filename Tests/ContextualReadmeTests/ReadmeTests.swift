import Contextual
import Testing

// Every ```swift block of README.md appears verbatim in this file (checked by .ci/check-readme.py);
// the tests below assert what the README's comments claim.

// MARK: - README: declaring keys

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

// MARK: - README: services

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

// MARK: - README: a library's keys, overridden by the tool that embeds it

public enum Verbosity: Int, Sendable {
    case quiet, normal, loud
}

enum OutputKey: ContextKey {
    static var defaultValue: @Sendable (String) -> Void { { print($0) } }
}

enum VerbosityKey: ContextKey {
    static var defaultValue: Verbosity { .normal }
}

extension ContextValues {
    public var output: @Sendable (String) -> Void {
        get { self[OutputKey.self] }
        set { self[OutputKey.self] = newValue }
    }

    public var verbosity: Verbosity {
        get { self[VerbosityKey.self] }
        set { self[VerbosityKey.self] = newValue }
    }
}

/// The library's entry point: it reads its settings from the current context.
public func runChecks() {
    let context = Context.current
    if context[\.verbosity] != .quiet {
        context[\.output]("checks passed")
    }
}

@Suite("The README's examples")
struct ReadmeTests {
    @Test("The quick start wires an app, a request and a service as the README says")
    func quickStart() {
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

        let audited = request.transforming(\.config) { $0.verbose = false }
        let quiet = audited[\.config].verbose  // false; `request` still reads true

        app.update { $0.config.databaseURL = "postgres://replica/app" }
        let url = request[\.config].databaseURL  // the new URL: updates reach descendants

        do {
            _ = try request.require(Metrics.self)
        } catch {
            print(error)  // names 'Metrics', the contexts searched ('request req-42' → 'app') and the fix
        }

        #expect(quiet == false)
        #expect(request[\.config].verbose)
        #expect(url == "postgres://replica/app")
        #expect(service.describe() == "req-42 uses postgres://localhost/app")
        let error = try? request.require(Metrics.self)
        #expect(error == nil)
        #expect(throws: ContextError.self) { try request.require(Metrics.self) }
    }

    @Test("A tool overrides a library's keys at its root")
    func libraryIntegration() {
        let tool = Context(name: "tool") {
            $0.verbosity = .loud
            $0.output = { line in print("[tool] \(line)") }
        }
        tool.run { runChecks() }

        // The same, capturing what the library writes.
        let lines = Lines()
        tool.child { $0.output = { lines.append($0) } }.run { runChecks() }
        tool.child {
            $0.verbosity = .quiet
            $0.output = { lines.append($0) }
        }.run { runChecks() }
        #expect(lines.all == ["checks passed"])
    }
}

/// Collects lines; a task-safe helper for the test above.
final class Lines: Sendable {
    private let storage = LinesStorage()
    func append(_ line: String) { storage.append(line) }
    var all: [String] { storage.all }
}

/// Keeps to the public API: `update` is an atomic read-modify-write, so racing appends are not lost.
final class LinesStorage: Sendable {
    private let context = Context(name: "lines") { $0.lines = [] }
    func append(_ line: String) { context.update { $0.lines.append(line) } }
    var all: [String] { context[\.lines] }
}

enum LinesKey: ContextKey {
    static var defaultValue: [String] { [] }
}

extension ContextValues {
    var lines: [String] {
        get { self[LinesKey.self] }
        set { self[LinesKey.self] = newValue }
    }
}
