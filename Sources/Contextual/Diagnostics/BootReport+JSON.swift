// A boot report as JSON: written with stable field names and read back with its format version checked.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - JSON

extension BootReport {
    /// The report as JSON, pretty-printed with sorted keys so that two reports diff line by line, ending
    /// with a newline. ``write(toFile:)`` writes it to a file.
    ///
    /// ```swift
    /// print(report.json)
    /// ```
    ///
    /// The fields are the properties' names: `formatVersion`, `context`, `providers` (each with `id`,
    /// `name`, `lifetime`, `registrar`, `status`, `builds`, `wallSeconds`, `nestedSeconds`, `ownSeconds`,
    /// `dependencies`, `failure`), `problems` (`code`, `requestedType`, `message`, `resolutionPath`) and
    /// `totals` (`providers`, `builds`, `edges`, `longestPath`, `longestPathProviders`, `bootSeconds`).
    /// Times are seconds. A field is renamed or removed only with a new ``currentFormatVersion``.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Fails only on a time that is not finite, which a report made by `bootReport` never holds (one built
        // by hand may): JSON has no such number.
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Reads a report written by ``json``, checking its format version first, then the format's rules: a
    /// baseline is outside input, and a report this library could not have written is refused rather than
    /// compared.
    ///
    /// ```swift
    /// let baseline = try BootReport(json: text, source: "boot-baseline.json")
    /// ```
    ///
    /// To load a baseline from its file, use ``init(contentsOfFile:)``, which also says in words why a file
    /// cannot be read.
    ///
    /// - Parameters:
    ///   - json: The text of a report.
    ///   - source: Where it was read from, for the message of an error (a file name, say).
    /// - Throws: ``ContextError/Code/incompatibleBootReport`` when it is in another format version (the
    ///   message names both), is empty, is not a report (the message names the field at fault by its
    ///   path, such as `providers[0].builds`, when there is one), or breaks a rule of the format (the
    ///   message names the field and its value): a lifetime other than `singleton`, `scoped` or
    ///   `transient`; a time that is negative, not finite, or above 1e9 seconds, or an own time that is
    ///   not the wall time minus the nested one; two providers with one id; a dependency on an id no
    ///   provider has, on the provider itself, or listed twice; a build count that contradicts the status;
    ///   totals that do not add up (providers, builds, edges) or a longest path that is not a path of the
    ///   graph, or not the longest.
    ///
    /// - Complexity: O(*n* + *p* + *e*) for a text of *n* bytes, *p* providers and *e* edges.
    public init(json: String, source: String = "the baseline") throws(ContextError) {
        try self.init(data: Data(json.utf8), origin: .text(source))
    }

    // MARK: - Reading

    /// Where a report being read comes from, which the messages of its errors name.
    enum Origin: Sendable {
        /// A text given to ``BootReport/init(json:source:)``, read from the place its argument names.
        case text(String)
        /// A file loaded by ``BootReport/init(contentsOfFile:)``, at this path.
        case file(String)

        /// The start of an error's message: what was read (`subject`, for a text), and where from.
        func opening(_ subject: String) -> String {
            switch self {
            case .text(let source): "\(subject) read from \(source)"
            case .file(let path): "could not load the baseline boot report from '\(path)': it"
            }
        }

        /// How to record the baseline again, for the fix of an error's message.
        var recording: String {
            switch self {
            case .text: "write a fresh `bootReport()` over it with `report.write(toFile:)`"
            case .file(let path): "write a fresh `bootReport()` there with `try report.write(toFile: \"\(path)\")`"
            }
        }
    }

    /// Reads a report's JSON from `data`: its format version first, then the whole report, then the
    /// format's rules.
    init(data: Data, origin: Origin) throws(ContextError) {
        guard data.contains(where: { !Self.isWhitespace($0) }) else {
            throw ContextError.unreadableBootReport(origin: origin, reason: "it is empty", underlying: nil)
        }
        struct Version: Decodable { var formatVersion: Int }
        let version: Version
        do {
            version = try JSONDecoder().decode(Version.self, from: data)
        } catch {
            throw ContextError.unreadableBootReport(origin: origin, decoding: error)
        }
        guard version.formatVersion == BootReport.currentFormatVersion else {
            throw ContextError.bootReportFormat(
                found: version.formatVersion,
                expected: BootReport.currentFormatVersion,
                origin: origin
            )
        }
        let report: BootReport
        do {
            report = try JSONDecoder().decode(BootReport.self, from: data)
        } catch {
            throw ContextError.unreadableBootReport(origin: origin, decoding: error)
        }
        if let violation = report.formatViolation() {
            throw ContextError.invalidBootReport(origin: origin, violation: violation)
        }
        self = report
    }

    /// Whether `byte` is white space between JSON's tokens (a space, a tab, a line feed, a return).
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
