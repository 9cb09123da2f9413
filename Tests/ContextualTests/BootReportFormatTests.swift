// Tests that a boot report read from outside keeps its format's rules, and that rendering one never traps.

import Foundation
import Testing

@testable import Contextual

// MARK: - Fixtures

private final class Config: Sendable {}
private final class Pool: Sendable {}
private final class Repository: Sendable {}
private final class Handler: Sendable {}
private final class Plugin: Sendable {}
private final class Loop: Sendable {}
private final class Back: Sendable {}

private protocol ReportedStore: Sendable {}
private final class ReportedMemoryStore: ReportedStore {}

/// The wiring of `BootReportTests`: Handler (scoped) → Repository → Pool → Config.
private func chainApp() -> Context {
    Context(name: "app") {
        $0.provide(Config.self, lifetime: .singleton) { _ in Config() }
        $0.provide(Pool.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Config.self)
            return Pool()
        }
        $0.provide(Repository.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Pool.self)
            return Repository()
        }
        $0.provide(Handler.self, lifetime: .scoped) { ctx in
            _ = try ctx.require(Repository.self)
            return Handler()
        }
    }
}

/// Every kind of entry a report holds: failures, a missing dependency, a cycle, several providers of one
/// type (ids with ` #2`), a forwarding, a transient, a nested build, and a singleton built before.
private func mixedApp() -> Context {
    Context(name: "mixed") {
        $0.provide(Pool.self, lifetime: .singleton) { _ in throw TestFailure(reason: "connection refused") }
        $0.provide(Repository.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Config.self)
            return Repository()
        }
        $0.provide(Loop.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Back.self)
            return Loop()
        }
        $0.provide(Back.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Loop.self)
            return Back()
        }
        for _ in 0..<3 { $0.addProvider(Plugin.self, lifetime: .singleton) { _ in Plugin() } }
        $0.provide(Handler.self, lifetime: .transient) { ctx in
            _ = try ctx.requireAll(Plugin.self)
            return Handler()
        }
        $0.provide(ReportedMemoryStore.self, lifetime: .singleton) { _ in ReportedMemoryStore() }
        $0.forward((any ReportedStore).self, to: ReportedMemoryStore.self)
    }
}

/// A report with one provider whose own time is `seconds` (and nested time `nested`), made by hand: the
/// values no report read from JSON holds, but a report built in code may.
private func handMadeReport(ownSeconds seconds: Double, nested: Double) -> BootReport {
    var provider = BootReport.Provider(id: "Pool (singleton)", name: "Pool", lifetime: "singleton")
    provider.ownSeconds = seconds
    provider.nestedSeconds = nested
    provider.wallSeconds = seconds
    return BootReport(
        context: "app",
        providers: [provider],
        problems: [],
        totals: .init(providers: 1, builds: 1, longestPath: 1, longestPathProviders: ["Pool (singleton)"])
    )
}

/// One way to break a report made by the library, the field the refusal must name, and a text of the
/// message that shows the value or the id.
struct BrokenBootReport: Sendable, CustomTestStringConvertible {
    var name: String
    var field: String
    var shows: String
    var breaking: @Sendable (inout BootReport) -> Void

    var testDescription: String { name }
}

/// The ways to break a report of `chainApp()` (providers, sorted by id: Config, Handler, Pool, Repository).
private let brokenReports: [BrokenBootReport] = [
    BrokenBootReport(name: "an unknown lifetime", field: "`providers[2].lifetime`", shows: "\"forever\"") {
        $0.providers[2].lifetime = "forever"
    },
    BrokenBootReport(name: "a negative wall time", field: "`providers[2].wallSeconds`", shows: "is -1.0") {
        $0.providers[2].wallSeconds = -1
    },
    BrokenBootReport(name: "a negative nested time", field: "`providers[2].nestedSeconds`", shows: "is -0.5") {
        $0.providers[2].nestedSeconds = -0.5
    },
    BrokenBootReport(name: "a negative own time", field: "`providers[2].ownSeconds`", shows: "is -0.25") {
        $0.providers[2].ownSeconds = -0.25
    },
    BrokenBootReport(name: "a negative boot time", field: "`totals.bootSeconds`", shows: "is -3.0") {
        $0.totals.bootSeconds = -3
    },
    BrokenBootReport(
        name: "an own time too large to render (the sweep's 9.3e14 s)",
        field: "`providers[2].ownSeconds`",
        shows: "is 930000000000000.0"
    ) {
        $0.providers[2].ownSeconds = 9.3e14
    },
    BrokenBootReport(
        name: "the largest number JSON reads",
        field: "`providers[0].wallSeconds`",
        shows: "1.7976931348623157e+308"
    ) {
        $0.providers[0].wallSeconds = .greatestFiniteMagnitude
        $0.providers[0].ownSeconds = .greatestFiniteMagnitude
    },
    BrokenBootReport(name: "a boot time beyond 31 years", field: "`totals.bootSeconds`", shows: "is 2000000000.0") {
        $0.totals.bootSeconds = 2e9
    },
    BrokenBootReport(
        name: "an own time that is not wall minus nested",
        field: "`providers[2].ownSeconds`",
        shows: "is 7.0"
    ) {
        $0.providers[2].ownSeconds = 7
    },
    BrokenBootReport(name: "a nested time above the wall time", field: "`providers[2].nestedSeconds`", shows: "is 5.0")
    {
        $0.providers[2].nestedSeconds = 5
    },
    BrokenBootReport(name: "two providers with one id", field: "`providers[3].id`", shows: "\"Pool (singleton)\"") {
        $0.providers[3].id = "Pool (singleton)"
    },
    BrokenBootReport(
        name: "a dependency on an unknown id",
        field: "`providers[1].dependencies[0]`",
        shows: "\"Repository (scoped)\""
    ) {
        $0.providers[1].dependencies = ["Repository (scoped)"]
    },
    BrokenBootReport(
        name: "a dependency on the provider itself",
        field: "`providers[0].dependencies[0]`",
        shows: "itself"
    ) {
        $0.providers[0].dependencies = ["Config (singleton)"]
        $0.totals.edges += 1
    },
    BrokenBootReport(name: "a dependency listed twice", field: "`providers[2].dependencies[1]`", shows: "again") {
        $0.providers[2].dependencies.append("Config (singleton)")
        $0.totals.edges += 1
    },
    BrokenBootReport(name: "a negative build count", field: "`providers[1].builds`", shows: "is -1") {
        $0.providers[1].builds = -1
    },
    BrokenBootReport(name: "a built provider that never ran", field: "`providers[1].builds`", shows: "status is built")
    {
        $0.providers[1].builds = 0
    },
    BrokenBootReport(name: "a provider not built that ran", field: "`providers[1].builds`", shows: "is 2") {
        $0.providers[1].status = .notBuilt
        $0.providers[1].builds = 2
    },
    BrokenBootReport(name: "a provider count that does not add up", field: "`totals.providers`", shows: "is 5") {
        $0.totals.providers = 5
    },
    BrokenBootReport(name: "a build count that does not add up", field: "`totals.builds`", shows: "add up to 4") {
        $0.totals.builds = 40
    },
    BrokenBootReport(name: "build counts whose sum overflows", field: "`totals.builds`", shows: "more than") {
        $0.providers[1].builds = .max
        $0.providers[2].builds = .max
    },
    BrokenBootReport(name: "an edge count that does not add up", field: "`totals.edges`", shows: "hold 3 edges") {
        $0.totals.edges = 2
    },
    BrokenBootReport(name: "a longest path whose count is not its length", field: "`totals.longestPath`", shows: "is 9")
    {
        $0.totals.longestPath = 9
    },
    BrokenBootReport(
        name: "a longest path that is not a path",
        field: "`totals.longestPathProviders[1]`",
        shows: "\"Config (singleton)\""
    ) {
        $0.totals.longestPathProviders = ["Handler (scoped)", "Config (singleton)"]
        $0.totals.longestPath = 2
    },
    BrokenBootReport(
        name: "a longest path through an unknown id",
        field: "`totals.longestPathProviders[0]`",
        shows: "\"Gateway (singleton)\""
    ) {
        $0.totals.longestPathProviders = ["Gateway (singleton)"]
        $0.totals.longestPath = 1
    },
    BrokenBootReport(
        name: "a longest path that is not the longest",
        field: "`totals.longestPath`",
        shows: "has 4 providers"
    ) {
        $0.totals.longestPathProviders = ["Pool (singleton)", "Config (singleton)"]
        $0.totals.longestPath = 2
    },
]

// MARK: - BootReportFormatTests

@Suite("Boot report format: a baseline read from outside keeps the format's rules; rendering never traps")
struct BootReportFormatTests {
    @Test("reports made by the library read back equal: a chain, failures, a cycle, a deadline, 10,000 providers")
    func libraryReportsRoundTrip() async throws {
        let gate = Gate()
        let deadlineApp = Context(name: "deadline") {
            $0.provide(Pool.self, lifetime: .singleton) { _ in
                gate.wait()
                return Pool()
            }
            $0.provide(Handler.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(Config.self)
                return Handler()
            }
            $0.provide(Config.self, lifetime: .singleton) { _ in Config() }
        }
        // Long enough for the other builds to end first on a loaded machine; Pool's is held until after.
        let cut = await deadlineApp.bootReport(deadline: .seconds(2))
        gate.open()
        let prebuilt = chainApp()
        _ = try prebuilt.scope(name: "warm").require(Handler.self)
        let large = Context(name: "large") {
            $0.provide(Config.self, lifetime: .singleton) { _ in Config() }
            for _ in 0..<10_000 {
                $0.addProvider(Plugin.self, lifetime: .singleton) { ctx in
                    _ = try ctx.require(Config.self)
                    return Plugin()
                }
            }
        }
        let reports = [
            await chainApp().bootReport(), await mixedApp().bootReport(), cut, await prebuilt.bootReport(),
            await Context(name: "empty").bootReport(), await large.bootReport(),
        ]
        #expect(reports[1].providers.contains { $0.status == .failed })
        #expect(reports[1].provider(named: "Loop")?.dependencies == ["Back (singleton)"])
        #expect(reports[1].provider(named: "Back")?.dependencies == ["Loop (singleton)"])
        #expect(cut.provider(named: "Pool")?.status == .building)
        #expect(reports[3].providers.contains { $0.status == .notBuilt })
        for report in reports {
            #expect(report.formatViolation() == nil, "\(report.context)")
            let read = try BootReport(json: report.json, source: "\(report.context).json")
            #expect(read == report)
            #expect(read.json == report.json)
            #expect(try read.compared(to: report, timeTolerance: 1).passed)
        }
    }

    @Test(
        "a report that breaks a rule of its format is refused, naming the field, its value, the file and the fix",
        arguments: brokenReports
    )
    func brokenReportIsRefused(_ broken: BrokenBootReport) async throws {
        var report = await chainApp().bootReport()
        #expect(
            report.providers.map(\.id) == [
                "Config (singleton)", "Handler (scoped)", "Pool (singleton)", "Repository (singleton)",
            ]
        )
        broken.breaking(&report)
        let error = #expect(throws: ContextError.self) {
            try BootReport(json: report.json, source: "boot-baseline.json")
        }
        #expect(error?.code == .incompatibleBootReport)
        let message = error?.message ?? ""
        #expect(message.contains("read from boot-baseline.json breaks the rules of format version 1"), "\(message)")
        #expect(message.contains(broken.field), "\(message)")
        #expect(message.contains(broken.shows), "\(message)")
        #expect(message.contains("Fix: make the baseline again with this version"), "\(message)")
    }

    @Test("a refusal names the provider by its id, quoted and cut short, whatever its text")
    func refusalQuotesTheID() async throws {
        var report = await chainApp().bootReport()
        let id = "Pool (singleton)\n" + String(repeating: "x", count: 200)
        report.providers[2].id = id
        report.providers[3].dependencies = [id]
        report.totals.longestPathProviders[2] = id
        report.providers[2].lifetime = "forever"
        let error = #expect(throws: ContextError.self) { try BootReport(json: report.json) }
        let message = error?.message ?? ""
        #expect(message.contains("`providers[2].lifetime` of \"Pool (singleton)\\nxxx"), "\(message)")
        #expect(message.contains("xxx…\""), "\(message)")
        #expect(!message.contains(String(repeating: "x", count: 81)), "\(message)")
        #expect(message.contains("the baseline breaks"), "\(message)")
    }

    // MARK: - Rendering any value

    @Test(
        "DOT and Mermaid render times too large for an integer, infinite or not a number, without stopping",
        arguments: [
            ("9.3e14", "0", "9.3e+17 ms own"), ("1.7976931348623157e+308", "1", "inf ms own, 1000.0 ms nested"),
            ("inf", "0", "inf ms own"), ("-inf", "0", "-inf ms own"), ("nan", "nan", "nan ms own"),
            ("-0.00123", "0", "-1.2 ms own"),
        ]
    )
    func extremeTimes(seconds: String, nested: String, shown: String) async throws {
        // In a process of its own: `Int(_:)` of such a time would stop the process. The times
        // go as text: JSON, which carries an exit test's captured values, has no infinity.
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            [seconds, nested] in
            let report = handMadeReport(ownSeconds: Double(seconds) ?? 0, nested: Double(nested) ?? 0)
            print(report.dot + report.mermaid, terminator: "")
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(output.contains("[label=\"Pool (singleton)\\n\(shown)"), "\(output)")
        #expect(output.contains("p0[\"Pool (singleton)<br/>\(shown)"), "\(output)")
    }

    @Test("a comparison's summary holds whatever a decoded comparison holds, without stopping")
    func comparisonSummary() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let json =
                #"{"addedProviders": ["A"], "removedProviders": [], "addedEdges": [], "removedEdges": [], "#
                + #""slower": [], "newProblems": [], "longestPath": []}"#
            let comparison = try JSONDecoder().decode(BootReportComparison.self, from: Data(json.utf8))
            print(comparison.summary)
        }
        let output = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
        #expect(output == "provider added: A\nverdict: failed\n")
    }
}
