import Contextual
import Testing

// The library's ```swift blocks of Articles/RunningAFleet.md, verbatim, and what their prose claims; the
// article's other blocks come from Examples/HummingbirdServer. The key `config` comes from
// GettingStartedTests.swift.

// MARK: - A mapping from any source

/// What a source's value is missing or wrong.
struct ConfigurationProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The mapping of the article's first block.
func fleetMapping() -> ConfigurationMapping<[String: String]> {
    var mapping = ConfigurationMapping<[String: String]>()
    mapping.map("database.url", to: \.config.databaseURL) { source, key in
        guard let url = source[key] else { throw ConfigurationProblem("missing") }
        return url
    }
    mapping.map("verbose", to: \.config.verbose) { source, key in
        guard let verbose = Bool(source[key] ?? "false") else { throw ConfigurationProblem("not true or false") }
        return verbose
    }
    mapping.check("the database is PostgreSQL") { $0.config.databaseURL.hasPrefix("postgres://") }
    return mapping
}

@Suite("Running a fleet (article)")
struct RunningAFleetTests {
    @Test("A mapping applies a source at boot, and a reload whole or not at all")
    func bootAndReload() throws {
        let mapping = fleetMapping()
        let file = ["database.url": "postgres://db-1/app"]
        let app = try Context(name: "app") { try mapping.apply(file, to: &$0) }
        #expect(app[\.config].databaseURL == "postgres://db-1/app")
        #expect(app[\.config].verbose == false)

        let request = app.child(name: "request") { mapping.pinMappedValues(in: &$0) }  // keeps what it started with

        let reloaded = ["database.url": "postgres://db-2/app", "verbose": "yes"]
        do {
            try app.update(from: reloaded, with: mapping)
        } catch {
            print(error.message)  // "the configuration was not applied to 'app': one problem: 'verbose' (Bool): …"
        }
        let error = #expect(throws: ContextError.self) { try app.update(from: reloaded, with: mapping) }
        #expect(
            error?.message.hasPrefix(
                "the configuration was not applied to 'app': one problem: 'verbose' (Bool): not true or false. "
            ) == true
        )
        #expect(app[\.config].databaseURL == "postgres://db-1/app", "nothing of the bad source was applied")

        try app.update(from: ["database.url": "postgres://db-2/app", "verbose": "true"], with: mapping)
        #expect(app[\.config].databaseURL == "postgres://db-2/app")
        #expect(app[\.config].verbose)
        #expect(app.child(name: "new request")[\.config].databaseURL == "postgres://db-2/app")
        #expect(request[\.config].databaseURL == "postgres://db-1/app", "a running request keeps what it started with")
    }

    @Test("A source that breaks a rule changes nothing")
    func brokenRule() throws {
        let app = try Context(name: "app") { try fleetMapping().apply(["database.url": "postgres://db/app"], to: &$0) }
        let error = #expect(throws: ContextError.self) {
            try app.update(from: ["database.url": "mysql://db/app"], with: fleetMapping())
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("the rule \"the database is PostgreSQL\" is broken") == true)
        #expect(app[\.config].databaseURL == "postgres://db/app")
    }
}
