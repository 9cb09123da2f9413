// The boot report of the server's wiring, for CI: `todo-boot-report --baseline boot-baseline.json
// --output DIR [--time-tolerance RATIO] [--write-baseline]`. Writes the report (JSON) and its dependency
// graph (DOT, Mermaid) to DIR, compares the report with the committed baseline and exits 1 when the
// comparison fails: a provider or a dependency added or removed, a new problem, or, with a tolerance, a
// factory slower than that many times its baseline.

import Contextual
import Foundation
import Logging
import TodoServer

let options = BootReportOptions(CommandLine.arguments.dropFirst())

// The server's context, as `buildApplication` makes it, with an in-memory database: validated once,
// with every factory call timed, within a deadline (a factory that hangs is reported, not waited for).
let app = makeAppContext(config: ServerConfig(databasePath: nil), logger: Logger(label: "boot-report"))
let report = await app.bootReport(deadline: .seconds(30))
try await app.shutdown()

// The report and its graph, kept by CI next to its logs.
try FileManager.default.createDirectory(atPath: options.output, withIntermediateDirectories: true)
try report.write(toFile: options.output + "/boot-report.json")
try report.dot.write(toFile: options.output + "/boot-graph.dot", atomically: true, encoding: .utf8)
try report.mermaid.write(toFile: options.output + "/boot-graph.mmd", atomically: true, encoding: .utf8)
let totals = report.totals
print("boot report: \(totals.providers) providers, \(totals.builds) builds, longest path \(totals.longestPath)")

if options.writeBaseline {
    try report.write(toFile: options.baseline)
    print("baseline written to \(options.baseline)")
    exit(report.isValid ? 0 : 1)
}

// Structure only unless a tolerance is given: CI machines differ, and a factory's time with them.
do {
    let baseline = try BootReport(contentsOfFile: options.baseline)
    let comparison = try report.compared(to: baseline, timeTolerance: options.timeTolerance)
    print(comparison.summary)
    exit(comparison.passed && report.isValid ? 0 : 1)
} catch {
    // No baseline, one not readable, not a boot report or of another format version: the message says which,
    // with its path, and how to fix it.
    print(error)
    exit(1)
}

// MARK: - Options

/// The command line's options.
struct BootReportOptions {
    var baseline = "boot-baseline.json"
    var output = "."
    var timeTolerance: Double?
    var writeBaseline = false

    init(_ arguments: ArraySlice<String>) {
        var arguments = arguments
        while let argument = arguments.popFirst() {
            switch argument {
            case "--baseline": baseline = arguments.popFirst() ?? baseline
            case "--output": output = arguments.popFirst() ?? output
            case "--time-tolerance": timeTolerance = arguments.popFirst().flatMap(Double.init)
            case "--write-baseline": writeBaseline = true
            default:
                print("unknown option \(argument): see the comment at the top of todo-boot-report/main.swift")
                exit(2)
            }
        }
    }
}
