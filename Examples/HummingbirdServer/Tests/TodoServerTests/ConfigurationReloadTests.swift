// The server's configuration from a real JSON file, rewritten while the server serves: applied whole to
// the app context, or not at all.

import Contextual
import Foundation
import Logging
import LoopbackHTTP
import Testing
import TodoServer

/// A configuration file in a directory of its own, removed at the end.
private struct ConfigurationFile {
    let directory: URL
    var path: String { directory.appendingPathComponent("config.json").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-config-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    static func json(greeting: String?, maxTitleLength: String) -> String {
        let greetingField = greeting.map { "\"greeting\": \"\($0)\", " } ?? ""
        return "{\(greetingField)\"todos\": {\"maxTitleLength\": \(maxTitleLength)}}"
    }

    /// Replaces the file at once (a new file renamed over it), as a deployment tool or a ConfigMap does.
    func replace(with text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Writes the file in place, as an editor that was interrupted leaves it.
    func overwriteInPlace(with text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Serves the app with its configuration read from `file` (checked every 20 ms), for `body`, given the
/// port; then stops the server.
private func withConfiguredServer(
    file: ConfigurationFile,
    reloads: ConfigurationReloads,
    environment: [String: String]? = nil,
    audit: ScopeAudit = ScopeAudit(),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ body: (Int) async throws -> Void
) async throws {
    let source = try await ConfigurationSource.file(
        file.path,
        pollInterval: .milliseconds(20),
        overriddenByEnvironment: environment != nil,
        environment: environment,
        logger: Logger(label: "config", factory: { _ in SwiftLogNoOpLogHandler() })
    )
    try await withServerOnPort(configuration: source, reloads: reloads, audit: audit, logger: logger) {
        try await body($1)
    }
}

/// How long a test waits for the server to see a rewritten file: long, as a loaded machine delays the
/// file's poll and the reload; reached only when the reload is broken.
private let reloadWaitLimit: Duration = .seconds(30)

/// Asks `GET /hello` until it says `greeting`, for at most ``reloadWaitLimit``.
private func waitForGreeting(_ greeting: String, port: Int) async throws -> Bool {
    let deadline = ContinuousClock.now + reloadWaitLimit
    return try await withLoopbackConnection(port: port) { http in
        while ContinuousClock.now < deadline {
            if try await http.get("/hello").body.hasPrefix("\(greeting) ") { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

/// Waits until `condition` holds, for at most ``reloadWaitLimit``.
private func waitUntil(_ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + reloadWaitLimit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

@Suite("The server's configuration from a file, kept current", .timeLimit(.minutes(5)))
struct ConfigurationReloadTests {
    @Test("A rewritten file reaches new requests; a request already running keeps what it started with")
    func reloadReachesNewRequests() async throws {
        let file = try ConfigurationFile()
        defer { file.remove() }
        try file.replace(with: ConfigurationFile.json(greeting: "hello", maxTitleLength: "10"))
        let reloads = ConfigurationReloads()
        let audit = ScopeAudit()
        try await withConfiguredServer(file: file, reloads: reloads, audit: audit) { port in
            // A request that reads the greeting, then waits for the app's to change, and reads it again. It
            // builds a unit of work once it has read (boot's checks may have built one before).
            let builtBefore = audit.built
            async let started: String = withLoopbackConnection(port: port) { http in
                // Its wait starts before the file is rewritten: twice the test's own wait for the reload.
                try await http.get("/greeting/twice?wait=60000").body
            }
            #expect(try await waitUntil { audit.built > builtBefore }, "the slow request has read the greeting")
            // Requests in flight the whole time, one after another on one connection: each sees one
            // configuration whole, and never the old one again once it saw the new one.
            async let seen: [String] = withLoopbackConnection(port: port) { http in
                var seen: [String] = []
                // Until the new greeting comes, and 50 requests at least (bounded: it may never come). From
                // before the file is rewritten: twice the test's own wait for the reload.
                let deadline = ContinuousClock.now + reloadWaitLimit * 2
                while ContinuousClock.now < deadline && (seen.last != "bonjour" || seen.count < 50) {
                    let response = try await http.get("/hello")
                    #expect(response.status == .ok)
                    seen.append(String(response.body.prefix { $0 != " " }))
                }
                return seen
            }
            try file.replace(with: ConfigurationFile.json(greeting: "bonjour", maxTitleLength: "10"))
            #expect(try await waitForGreeting("bonjour", port: port))
            let slow = try await started
            #expect(slow == "hello hello bonjour", "the running request kept the greeting it started with")
            let greetings = try await seen
            #expect(greetings.last == "bonjour")
            #expect(Set(greetings).isSubset(of: ["hello", "bonjour"]))
            let firstNew = greetings.firstIndex(of: "bonjour") ?? greetings.endIndex
            #expect(!greetings[firstNew...].contains("hello"), "no request went back to the old greeting")
        }
        #expect(reloads.applied == 2)  // the boot's, and the rewrite's
        #expect(reloads.rejected == 0)
    }

    @Test("Environment variables override the file, by swift-configuration's names")
    func environmentOverrides() async throws {
        let file = try ConfigurationFile()
        defer { file.remove() }
        try file.replace(with: ConfigurationFile.json(greeting: "hello", maxTitleLength: "10"))
        let environment = ["GREETING": "hej", "TODOS_MAX_TITLE_LENGTH": "20"]
        try await withConfiguredServer(file: file, reloads: ConfigurationReloads(), environment: environment) { port in
            let (greeting, long) = try await withLoopbackConnection(port: port) { http in
                try await (http.get("/hello").body, http.post("/todos", body: "eleven char").status)
            }
            #expect(greeting.hasPrefix("hej "))
            #expect(long == .ok)
        }
    }

    @Test("A configuration with a bad value changes nothing, is logged and counted; the next good one applies")
    func badValuesChangeNothing() async throws {
        let file = try ConfigurationFile()
        defer { file.remove() }
        try file.replace(with: ConfigurationFile.json(greeting: "hello", maxTitleLength: "10"))
        let reloads = ConfigurationReloads()
        let log = RecordingLog()
        try await withConfiguredServer(file: file, reloads: reloads, logger: log.logger) { port in
            let bad = [
                (ConfigurationFile.json(greeting: "hola", maxTitleLength: "\"ten\""), "'todos.maxTitleLength' (Int)"),
                (ConfigurationFile.json(greeting: "hola", maxTitleLength: "0"), "between 1 and 4096"),
                (ConfigurationFile.json(greeting: nil, maxTitleLength: "20"), "'greeting' (String)"),
            ]
            for (rejected, (text, named)) in bad.enumerated() {
                try file.replace(with: text)
                #expect(try await waitUntil { reloads.rejected == rejected + 1 })
                #expect(reloads.lastError?.contains(named) == true, "\(reloads.lastError ?? "no error")")
                let (greeting, long, short) = try await withLoopbackConnection(port: port) { http in
                    try await (
                        http.get("/hello").body, http.post("/todos", body: "eleven char").status,
                        http.post("/todos", body: "ten chars!").status
                    )
                }
                // Nothing half-applied: the greeting of the bad file did not come in, the limit stayed.
                #expect(greeting.hasPrefix("hello "))
                #expect(long == .badRequest)
                #expect(short == .ok)
            }
            try file.replace(with: ConfigurationFile.json(greeting: "hola", maxTitleLength: "20"))
            #expect(try await waitForGreeting("hola", port: port))
            let long = try await withLoopbackConnection(port: port) { http in
                try await http.post("/todos", body: "eleven char").status
            }
            #expect(long == .ok)
        }
        #expect(reloads.rejected == 3)
        let logged = log.lines.filter { $0.contains("configuration not applied") }
        #expect(logged.count == 3)
        #expect(logged.first?.contains("'todos.maxTitleLength' (Int)") == true, "\(logged)")
    }

    @Test("A file caught mid-write changes nothing; once whole, it applies")
    func truncatedFileChangesNothing() async throws {
        let file = try ConfigurationFile()
        defer { file.remove() }
        try file.replace(with: ConfigurationFile.json(greeting: "hello", maxTitleLength: "10"))
        let reloads = ConfigurationReloads()
        try await withConfiguredServer(file: file, reloads: reloads) { port in
            let whole = ConfigurationFile.json(greeting: "bonjour", maxTitleLength: "12")
            try file.overwriteInPlace(with: String(whole.prefix(whole.count / 2)))
            try await withLoopbackConnection(port: port) { http in
                // Twenty polls of the file, and requests all along: the old configuration, whole.
                for _ in 0..<40 {
                    let response = try await http.get("/hello")
                    #expect(response.status == .ok)
                    #expect(response.body.hasPrefix("hello "))
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            #expect(reloads.rejected == 0, "a file that does not parse never reaches the app context")
            try file.overwriteInPlace(with: whole)
            #expect(try await waitForGreeting("bonjour", port: port))
        }
    }

    @Test("A file with a bad value stops the server's start, naming the key")
    func badFileAtBoot() async throws {
        let file = try ConfigurationFile()
        defer { file.remove() }
        try file.replace(with: ConfigurationFile.json(greeting: "hello", maxTitleLength: "\"many\""))
        let error = await #expect(throws: ContextError.self) {
            try await withConfiguredServer(file: file, reloads: ConfigurationReloads()) { _ in }
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("'todos.maxTitleLength' (Int)") == true)
    }
}
