// A boot report as JSON: written with stable field names and read back with its format version checked.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - JSON

extension BootReport {
    /// The report as JSON, pretty-printed with sorted keys so that two reports diff line by line, ending
    /// with a newline.
    ///
    /// ```swift
    /// try report.json.write(toFile: "boot-report.json", atomically: true, encoding: .utf8)
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
    /// let baseline = try BootReport(json: String(contentsOfFile: "boot-baseline.json", encoding: .utf8))
    /// ```
    ///
    /// - Parameters:
    ///   - json: The text of a report.
    ///   - source: Where it was read from, for the message of an error (a file name, say).
    /// - Throws: ``ContextError/Code/incompatibleBootReport`` when it is in another format version (the
    ///   message names both), is not a report, or breaks a rule of the format (the message names the
    ///   field and its value): a lifetime other than `singleton`, `scoped` or `transient`; a time that is
    ///   negative, not finite, or above 1e9 seconds, or an own time that is not the wall time minus the
    ///   nested one; two providers with one id; a dependency on an id no provider has, on the provider
    ///   itself, or listed twice; a build count that contradicts the status; totals that do not add up
    ///   (providers, builds, edges) or a longest path that is not a path of the graph, or not the longest.
    ///
    /// - Complexity: O(*n* + *p* + *e*) for a text of *n* bytes, *p* providers and *e* edges.
    public init(json: String, source: String = "the baseline") throws(ContextError) {
        let data = Data(json.utf8)
        struct Version: Decodable { var formatVersion: Int }
        let version: Version
        do {
            version = try JSONDecoder().decode(Version.self, from: data)
        } catch {
            throw ContextError.unreadableBootReport(source: source, error: error)
        }
        guard version.formatVersion == BootReport.currentFormatVersion else {
            throw ContextError.bootReportFormat(
                found: version.formatVersion,
                expected: BootReport.currentFormatVersion,
                source: source
            )
        }
        let report: BootReport
        do {
            report = try JSONDecoder().decode(BootReport.self, from: data)
        } catch {
            throw ContextError.unreadableBootReport(source: source, error: error)
        }
        if let violation = report.formatViolation() {
            throw ContextError.invalidBootReport(source: source, violation: violation)
        }
        self = report
    }
}
