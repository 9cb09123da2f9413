import Foundation
import Testing

@testable import Contextual

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Fixtures

private final class Config: Sendable {}
private final class Pool: Sendable {}

/// Pool → Config: a report with two providers and an edge.
private func poolApp() -> Context {
    Context(name: "app") {
        $0.provide(Config.self, lifetime: .singleton) { _ in Config() }
        $0.provide(Pool.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Config.self)
            return Pool()
        }
    }
}

/// A directory of its own under the temporary directory, removed when `body` returns.
private func withTemporaryDirectory(_ body: (String) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("boot-report-\(UUID())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await body(directory)
}

/// Loads the baseline at `path`, expecting an error.
private func loadError(_ path: String) -> ContextError? {
    #expect(throws: ContextError.self) { try BootReport(contentsOfFile: path) }
}

/// Checks that `message` speaks in words: none of Foundation's error domains, the decoder's wording or
/// Swift's type and key names.
private func expectPlainWords(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for detail in [
        "NSCocoaErrorDomain", "Code=", "CocoaError", "POSIXError", "The given data", "valid JSON", "Expected to decode",
        "CodingKeys", "Index 0", "Swift.", "Dictionary<", "debugDescription", "keyNotFound", "typeMismatch",
    ] {
        #expect(!message.contains(detail), "\(detail) in: \(message)", sourceLocation: sourceLocation)
    }
}

// MARK: - BootReportFileTests

@Suite("Boot report files: a baseline loaded from its path and a report written to one, failures told in words")
struct BootReportFileTests {
    @Test("a report written to a file loads back equal, and the file holds its JSON")
    func roundTrip() async throws {
        try await withTemporaryDirectory { directory in
            let report = await poolApp().bootReport()
            let path = directory + "/boot-baseline.json"
            try report.write(toFile: path)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == report.json)
            let baseline = try BootReport(contentsOfFile: path)
            #expect(baseline == report)
            #expect(try report.compared(to: baseline).passed)
            try report.write(toFile: path)  // replaces the file
            #expect(try BootReport(contentsOfFile: path) == report)
        }
    }

    @Test("a missing file names the path, says there is no such file, and how to record the baseline")
    func missingFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/boot-baseline.json"
            let error = loadError(path)
            #expect(error?.code == .bootReportFileFailed)
            let message = error?.message ?? ""
            #expect(message.hasPrefix("could not load the baseline boot report from '\(path)': "), "\(message)")
            #expect(message.contains("there is no such file"), "\(message)")
            #expect(message.contains("Fix: record the baseline first"), "\(message)")
            #expect(message.contains("`try report.write(toFile: \"\(path)\")`"), "\(message)")
            #expect(error?.underlyingErrors.count == 1)
            expectPlainWords(message)
        }
    }

    @Test("a missing file given by a relative path names the working directory it was looked for in")
    func missingRelativeFile() {
        let path = "no-such-directory-\(UUID())/boot-baseline.json"
        let message = loadError(path)?.message ?? ""
        #expect(message.contains("there is no such file"), "\(message)")
        #expect(message.contains("from the working directory '\(FileManager.default.currentDirectoryPath)'"))
        expectPlainWords(message)
    }

    @Test("a directory given as the baseline is named as one")
    func directory() async throws {
        try await withTemporaryDirectory { directory in
            let error = loadError(directory)
            #expect(error?.code == .bootReportFileFailed)
            let message = error?.message ?? ""
            #expect(message.hasPrefix("could not load the baseline boot report from '\(directory)': "), "\(message)")
            #expect(message.contains("it is a directory, not a file"), "\(message)")
            #expect(message.contains("'\(directory)/boot-baseline.json'"), "\(message)")
            expectPlainWords(message)
        }
    }

    @Test("a file that is not readable says permission denied (root reads it all the same)")
    func unreadable() async throws {
        try await withTemporaryDirectory { directory in
            let report = await poolApp().bootReport()
            let path = directory + "/boot-baseline.json"
            try report.write(toFile: path)
            #expect(chmod(path, 0) == 0)
            defer { chmod(path, 0o644) }
            guard getuid() != 0 else {
                // Root reads a file whatever its mode: there is no refusal to check.
                #expect(try BootReport(contentsOfFile: path) == report)
                return
            }
            let error = loadError(path)
            #expect(error?.code == .bootReportFileFailed)
            let message = error?.message ?? ""
            #expect(message.contains("from '\(path)': the file is not readable: permission denied"), "\(message)")
            #expect(message.contains("chmod a+r"), "\(message)")
            expectPlainWords(message)
        }
    }

    @Test("an empty file, or one of white space, is said to be empty")
    func emptyFile() async throws {
        try await withTemporaryDirectory { directory in
            for (name, text) in [("empty.json", ""), ("blank.json", " \n\t\n")] {
                let path = directory + "/" + name
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                let error = loadError(path)
                #expect(error?.code == .incompatibleBootReport)
                let message = error?.message ?? ""
                #expect(
                    message.hasPrefix(
                        "could not load the baseline boot report from '\(path)': it is not a boot report of format "
                            + "version 1: it is empty. Fix:"
                    ),
                    "\(message)"
                )
                #expect(message.contains("`try report.write(toFile: \"\(path)\")`"), "\(message)")
                expectPlainWords(message)
            }
        }
    }

    @Test("a file cut short, or of garbage, is said to be cut short or corrupt")
    func corruptFile() async throws {
        try await withTemporaryDirectory { directory in
            let json = await poolApp().bootReport().json
            let cases = [("cut.json", String(json.prefix(json.count / 2))), ("garbage.json", "\u{1}boot\u{2}")]
            for (name, text) in cases {
                let path = directory + "/" + name
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                let error = loadError(path)
                #expect(error?.code == .incompatibleBootReport)
                let message = error?.message ?? ""
                #expect(message.hasPrefix("could not load the baseline boot report from '\(path)': "), "\(message)")
                #expect(message.contains("its text is cut short or corrupt"), "\(message)")
                expectPlainWords(message)
            }
        }
    }

    @Test(
        "a field of the wrong kind, null, missing or out of its values is named by its path",
        arguments: [
            (#""builds" : 1"#, #""builds" : "many""#, "`providers[0].builds` is not a whole number"),
            (#""builds" : 1"#, #""builds" : null"#, "`providers[0].builds` is null, where a whole number belongs"),
            (#""builds" : 1,"#, "", "`providers[0].builds` is missing"),
            (#""status" : "built""#, #""status" : "exploded""#, "`providers[0].status` holds a value its field"),
            (
                #""dependencies" : ["#, #""dependencies" : {"x": 1}, "old" : ["#,
                "`providers[0].dependencies` is not a list"
            ),
        ]
    )
    func corruptField(replacing: String, with replacement: String, shows: String) async throws {
        try await withTemporaryDirectory { directory in
            let json = await poolApp().bootReport().json
            #expect(json.contains(replacing))
            let path = directory + "/boot-baseline.json"
            try json.replacing(replacing, with: replacement).write(toFile: path, atomically: true, encoding: .utf8)
            let error = loadError(path)
            #expect(error?.code == .incompatibleBootReport)
            let message = error?.message ?? ""
            #expect(message.contains(shows), "\(message)")
            expectPlainWords(message)
        }
    }

    @Test("a valid JSON of another shape is not a boot report: a list, or an object without the fields")
    func anotherShape() async throws {
        try await withTemporaryDirectory { directory in
            let cases = [
                ("list.json", "[1, 2, 3]", "it holds no object with a boot report's fields"),
                ("number.json", "42", "it holds no object with a boot report's fields"),
                ("package.json", #"{"name": "app", "version": "1.0.0"}"#, "`formatVersion` is missing"),
                ("version.json", #"{"formatVersion": "1"}"#, "`formatVersion` is not a whole number"),
                ("half.json", #"{"formatVersion": 1, "context": "app"}"#, "`providers` is missing"),
            ]
            for (name, text, shows) in cases {
                let path = directory + "/" + name
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                let error = loadError(path)
                #expect(error?.code == .incompatibleBootReport)
                let message = error?.message ?? ""
                #expect(
                    message.hasPrefix(
                        "could not load the baseline boot report from '\(path)': it is not a boot report of format "
                            + "version 1: \(shows)"
                    ),
                    "\(message)"
                )
                expectPlainWords(message)
            }
        }
    }

    @Test("a baseline of another format version names both versions, the path and how to write it again")
    func otherFormatVersion() async throws {
        try await withTemporaryDirectory { directory in
            var report = await poolApp().bootReport()
            report.formatVersion = 2
            let path = directory + "/boot-baseline.json"
            try report.json.write(toFile: path, atomically: true, encoding: .utf8)
            let error = loadError(path)
            #expect(error?.code == .incompatibleBootReport)
            let message = error?.message ?? ""
            #expect(
                message.hasPrefix(
                    "could not load the baseline boot report from '\(path)': it is in format version 2, but this "
                        + "version of Contextual reads and writes format version 1"
                ),
                "\(message)"
            )
            #expect(message.contains("`try report.write(toFile: \"\(path)\")`"), "\(message)")
            expectPlainWords(message)
        }
    }

    @Test("a baseline that breaks a rule of its format names the field, from its path")
    func brokenRule() async throws {
        try await withTemporaryDirectory { directory in
            var report = await poolApp().bootReport()
            report.providers[0].lifetime = "forever"
            let path = directory + "/boot-baseline.json"
            try report.json.write(toFile: path, atomically: true, encoding: .utf8)
            let message = loadError(path)?.message ?? ""
            #expect(
                message.hasPrefix(
                    "could not load the baseline boot report from '\(path)': it breaks the rules of format version 1: "
                        + "`providers[0].lifetime`"
                ),
                "\(message)"
            )
        }
    }

    @Test("a report written where it cannot be names the path and the reason: no directory, a directory")
    func writeFailures() async throws {
        try await withTemporaryDirectory { directory in
            let report = await poolApp().bootReport()
            let missing = directory + "/missing/boot-baseline.json"
            let noDirectory = #expect(throws: ContextError.self) { try report.write(toFile: missing) }
            #expect(noDirectory?.code == .bootReportFileFailed)
            let message = noDirectory?.message ?? ""
            #expect(
                message.hasPrefix(
                    "could not write the boot report to '\(missing)': the directory '\(directory)/missing' does not "
                        + "exist. Fix: create it first"
                ),
                "\(message)"
            )
            expectPlainWords(message)
            let onDirectory = #expect(throws: ContextError.self) { try report.write(toFile: directory) }
            #expect(onDirectory?.code == .bootReportFileFailed)
            #expect(
                onDirectory?.message.contains("it is a directory, not a file") == true,
                "\(onDirectory?.message ?? "")"
            )
            expectPlainWords(onDirectory?.message ?? "")
            #expect(ContextError.Code.bootReportFileFailed.description == "bootReportFileFailed")
        }
    }

    @Test("the example tool's steps: write the report, record the baseline, then load it and compare")
    func exampleToolSteps() async throws {
        try await withTemporaryDirectory { directory in
            // The options of Examples/HummingbirdServer's todo-boot-report, whose lines this runs.
            struct Options {
                var baseline: String
                var output: String
                var timeTolerance: Double?
            }
            let options = Options(baseline: directory + "/boot-baseline.json", output: directory + "/out")
            let report = await poolApp().bootReport()
            try FileManager.default.createDirectory(atPath: options.output, withIntermediateDirectories: true)
            try report.write(toFile: options.output + "/boot-report.json")
            try report.write(toFile: options.baseline)
            let baseline = try BootReport(contentsOfFile: options.baseline)
            let comparison = try report.compared(to: baseline, timeTolerance: options.timeTolerance)
            #expect(comparison.passed && report.isValid)
            #expect(try BootReport(contentsOfFile: options.output + "/boot-report.json") == report)
        }
    }
}
