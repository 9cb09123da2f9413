import Testing

@testable import Contextual

// MARK: - Fixtures

private struct Limits: Sendable, Equatable {
    var maxItems = 10
    var title = "todos"
}

private enum LimitsKey: ContextKey {
    static var defaultValue: Limits { Limits() }
}

private enum GreetingKey: ContextKey {
    static var defaultValue: String { "hello" }
}

extension ContextValues {
    fileprivate var limits: Limits {
        get { self[LimitsKey.self] }
        set { self[LimitsKey.self] = newValue }
    }

    fileprivate var greeting: String {
        get { self[GreetingKey.self] }
        set { self[GreetingKey.self] = newValue }
    }
}

/// A value a configuration source holds that is not what its key needs.
private struct BadValue: Error, CustomStringConvertible {
    let description: String
}

/// A source as a file gives it: strings by name.
private typealias Source = [String: String]

private func required(_ source: Source, _ name: String) throws -> String {
    guard let value = source[name] else { throw BadValue(description: "missing") }
    return value
}

/// The mapping under test: a greeting, a part of a struct from an integer, a rule over the result.
private let mapping: ConfigurationMapping<Source> = {
    var mapping = ConfigurationMapping<Source>()
    mapping.map("greeting", to: \.greeting) { source, key in try required(source, key) }
    mapping.map("limits.max", to: \.limits.maxItems) { source, key in
        let text = try required(source, key)
        guard let number = Int(text) else { throw BadValue(description: "'\(text)' is not a number.") }
        return number
    }
    mapping.check("limits.max is at least 1") { $0.limits.maxItems >= 1 }
    return mapping
}()

// MARK: - Tests

@Suite("Configuration mappings")
struct ConfigurationMappingTests {
    @Test("Applying a valid source sets every mapped value, a part of a struct keeping the rest")
    func appliesEveryValue() throws {
        let app = try Context(name: "app") {
            $0.limits = Limits(maxItems: 1, title: "kept")
            try mapping.apply(["greeting": "hi", "limits.max": "42"], to: &$0)
        }
        #expect(app[\.greeting] == "hi")
        #expect(app[\.limits] == Limits(maxItems: 42, title: "kept"))
    }

    @Test("A source with bad values changes nothing, and the error lists every one with its key")
    func badValuesChangeNothing() {
        var values = ContextValues(own: .empty, inherited: .empty)
        values.greeting = "before"
        let error = #expect(throws: ContextError.self) {
            try mapping.apply(["limits.max": "ten"], to: &values)
        }
        #expect(values.greeting == "before")
        #expect(values.limits == Limits())
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.underlyingErrors.count == 2)
        #expect(
            error?.message
                == "the configuration was not applied: 2 problems: 'greeting' (String): missing; 'limits.max' "
                + "(Int): 'ten' is not a number. Nothing "
                + "was changed: the values set before stay. Fix: correct the configuration source; the next "
                + "valid one is applied whole."
        )
    }

    @Test("Rules are checked only when every read succeeded: the error lists the reads that failed")
    func readsBeforeRules() {
        let error = #expect(throws: ContextError.self) {
            var values = ContextValues(own: .empty, inherited: .empty)
            try mapping.apply(["greeting": "hi", "limits.max": "zero"], to: &values)
        }
        #expect(error?.message.contains("'limits.max' (Int): 'zero' is not a number") == true)
        #expect(error?.message.contains("rule") == false)
    }

    @Test("A source whose values break a rule changes nothing")
    func brokenRuleChangesNothing() {
        let app = Context(name: "app") { $0.greeting = "before" }
        let error = #expect(throws: ContextError.self) {
            try app.update(from: ["greeting": "after", "limits.max": "0"], with: mapping)
        }
        #expect(app[\.greeting] == "before")
        #expect(app[\.limits].maxItems == 10)
        #expect(
            error?.message.contains("to 'app': one problem: the rule \"limits.max is at least 1\" is broken") == true
        )
        #expect(error?.searchedContexts == ["app"])
    }

    @Test("An update from a source notifies observers once, and a child that set a value keeps it")
    func updateNotifiesAndKeepsChildren() throws {
        let app = Context(name: "app") { $0.greeting = "v1" }
        let request = app.child(name: "request") { mapping.pinMappedValues(in: &$0) }  // what it started with
        let later = app.child(name: "later")
        let seen = Collector<String>()
        let token = app.observe(\.greeting) { seen.append($0) }
        try app.update(from: ["greeting": "v2", "limits.max": "5"], with: mapping)
        #expect(seen.all == ["v2"])
        #expect(app[\.limits].maxItems == 5)
        #expect(request[\.greeting] == "v1")
        #expect(request[\.limits].maxItems == 10)
        #expect(later[\.greeting] == "v2")
        // A failed update tells nobody.
        #expect(throws: ContextError.self) { try app.update(from: ["greeting": "v3"], with: mapping) }
        #expect(seen.all == ["v2"])
        #expect(app[\.greeting] == "v2")
        withExtendedLifetime(token) {}
    }

    @Test("Updates racing readers: each reader sees a value of one source or the next, never a failed one")
    func racingUpdates() async {
        let app = Context(name: "app") { $0.limits = Limits(maxItems: 1, title: "1") }
        let pairs: ConfigurationMapping<Int> = {
            var pairs = ConfigurationMapping<Int>()
            // Two parts of one value, from one source: a reader must see both from the same source.
            pairs.map("max", to: \.limits.maxItems) { source, _ in source }
            pairs.map("title", to: \.limits.title) { source, _ in
                guard source % 7 != 0 else { throw BadValue(description: "no title") }
                return String(source)
            }
            return pairs
        }()
        // Each task returns what it counted: failed updates for the writer, mismatches for the readers.
        let (failures, mismatches) = await withTaskGroup(of: (Int, Int).self) { group in
            group.addTask {
                var failures = 0
                for source in 2...2_000 {
                    do { try app.update(from: source, with: pairs) } catch { failures += 1 }
                }
                return (failures, 0)
            }
            for _ in 0..<3 {
                group.addTask {
                    var mismatches = 0
                    for _ in 0..<5_000 {
                        let limits = app[\.limits]
                        if limits.title != String(limits.maxItems) || limits.maxItems % 7 == 0 { mismatches += 1 }
                    }
                    return (0, mismatches)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        #expect(mismatches == 0)
        #expect(failures == 285)  // the multiples of 7 in 2...2000
        #expect(app[\.limits] == Limits(maxItems: 2_000, title: "2000"))
    }
}
