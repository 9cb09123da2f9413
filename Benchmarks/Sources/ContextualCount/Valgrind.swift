import Foundation

// MARK: - Counting under valgrind

/// Counts with valgrind what one run of a scenario costs: instructions with callgrind, allocations with
/// memcheck. Neither depends on the machine's load.
struct Valgrind {
    /// Where the output files go.
    let directory: String

    enum Failure: Error, CustomStringConvertible {
        case failed(String, status: Int32, output: String)
        case unreadable(String, output: String)

        var description: String {
            switch self {
            case .failed(let command, let status, let output):
                "\(command) exited with \(status):\n\(output.suffix(2_000))"
            case .unreadable(let what, let output):
                "no \(what) in valgrind's output:\n\(output.suffix(2_000))"
            }
        }
    }

    /// Instructions executed (callgrind's Ir) by `runner --run-one scenario --iterations n`, every thread.
    func instructions(_ runner: String, _ scenario: String, iterations: Int, warmUp: Int) throws -> Int {
        let outFile = directory + "/callgrind.out"
        try? FileManager.default.removeItem(atPath: outFile)
        let log = try run(
            ["--tool=callgrind", "--callgrind-out-file=\(outFile)"],
            runner,
            scenario,
            iterations,
            warmUp: warmUp
        )
        let profile = (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
        if let total = Self.callgrindTotal(profile: profile) ?? Self.callgrindCollected(log: log) { return total }
        throw Failure.unreadable("instruction count", output: log)
    }

    /// Allocations (memcheck's "total heap usage: X allocs": malloc, calloc, realloc, memalign,
    /// posix_memalign, aligned_alloc and the C++ `new`s alike) made by the same command.
    func allocations(_ runner: String, _ scenario: String, iterations: Int, warmUp: Int) throws -> Int {
        // Only the count at exit is read: no stack trace is kept per allocation, and no inlined frames are
        // read from the debug information (together, about a tenth of a short run's time under memcheck).
        let log = try run(
            [
                "--tool=memcheck", "--leak-check=no", "--undef-value-errors=no", "--keep-stacktraces=none",
                "--read-inline-info=no",
            ],
            runner,
            scenario,
            iterations,
            warmUp: warmUp
        )
        if let count = Self.memcheckAllocations(log: log) { return count }
        throw Failure.unreadable("allocation count", output: log)
    }

    private func run(
        _ tool: [String],
        _ runner: String,
        _ scenario: String,
        _ iterations: Int,
        warmUp: Int
    ) throws -> String {
        let arguments =
            tool + [
                runner, "--run-one", scenario, "--iterations", String(iterations), "--warm-up", String(warmUp),
            ]
        let logFile = directory + "/valgrind.log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        guard let log = FileHandle(forWritingAtPath: logFile) else {
            throw Failure.unreadable("log file \(logFile)", output: "")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["valgrind"] + arguments
        // Swift seeds its hashing per process, so a dictionary's probes, and the count, vary a little from
        // run to run (about 1-2% for a scope); a fixed seed makes the runs at N and 2N, and the next run,
        // count the same work.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        process.environment = environment
        process.standardOutput = log
        process.standardError = log
        try process.run()
        process.waitUntilExit()
        try log.close()
        let output = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw Failure.failed(
                "valgrind " + arguments.joined(separator: " "),
                status: process.terminationStatus,
                output: output
            )
        }
        return output
    }

    // MARK: - Parsing

    /// The first number of a callgrind profile's `totals:` line, or else of its `summary:` line (both are
    /// the event totals; the first event is Ir by default).
    static func callgrindTotal(profile: String) -> Int? {
        var summary: Int?
        for line in profile.split(separator: "\n") {
            if line.hasPrefix("totals:") { return firstNumber(in: line.dropFirst("totals:".count)) }
            if line.hasPrefix("summary:") { summary = firstNumber(in: line.dropFirst("summary:".count)) }
        }
        return summary
    }

    /// The count of callgrind's closing "==pid== Collected : N" line (older valgrinds), or of its
    /// "==pid== I   refs:      N" line (3.19).
    static func callgrindCollected(log: String) -> Int? {
        for line in log.split(separator: "\n") {
            for label in ["Collected :", "I   refs:"] {
                guard let range = line.range(of: label) else { continue }
                return firstNumber(in: line[range.upperBound...])
            }
        }
        return nil
    }

    /// X in memcheck's "==pid== total heap usage: X allocs, Y frees, Z bytes allocated" (X with commas).
    static func memcheckAllocations(log: String) -> Int? {
        for line in log.split(separator: "\n") {
            guard let range = line.range(of: "total heap usage:") else { continue }
            return firstNumber(in: line[range.upperBound...])
        }
        return nil
    }

    /// The first run of digits in `text`, with thousands separators (`,`) skipped.
    static func firstNumber(in text: Substring) -> Int? {
        var digits = ""
        for character in text.drop(while: { !$0.isNumber }) {
            if character.isNumber {
                digits.append(character)
            } else if character != "," {
                break
            }
        }
        return Int(digits)
    }
}
