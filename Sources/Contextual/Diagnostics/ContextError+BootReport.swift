// The errors of boot reports: a baseline of another format or breaking its rules, a build still running at
// the deadline.

// MARK: - Boot report errors

extension ContextError {
    /// A baseline written in format `found`, which this library (format `expected`) does not read.
    static func bootReportFormat(found: Int, expected: Int, source: String) -> ContextError {
        ContextError(
            code: .incompatibleBootReport,
            requestedType: "BootReport",
            searchedContexts: [],
            message: "the boot report read from \(source) is in format version \(found), but this version of "
                + "Contextual reads and writes format version \(expected): the two cannot be compared. Fix: make "
                + "the baseline again with this version (write `report.json` of a fresh `bootReport()` to it)."
        )
    }

    /// A text that is not a boot report at all.
    static func unreadableBootReport(source: String, error: any Error) -> ContextError {
        ContextError(
            code: .incompatibleBootReport,
            requestedType: "BootReport",
            searchedContexts: [],
            message: "the text read from \(source) is not a boot report of format version "
                + "\(BootReport.currentFormatVersion) (no `formatVersion`, or a field is missing or of another type): \(error). Fix: "
                + "give the JSON written by `BootReport.json`, or make the baseline again.",
            underlyingErrors: [error]
        )
    }

    /// A text that reads as a report of this format version, but breaks one of its rules (`violation`):
    /// edited by hand or corrupted, for `BootReport.json` never writes one.
    static func invalidBootReport(source: String, violation: BootReport.FormatViolation) -> ContextError {
        ContextError(
            code: .incompatibleBootReport,
            requestedType: "BootReport",
            searchedContexts: [],
            message: "the boot report read from \(source) breaks the rules of format version "
                + "\(BootReport.currentFormatVersion): `\(violation.field)` \(violation.problem). A report written by "
                + "`BootReport.json` never does: the file was edited by hand or is corrupt. Fix: make the baseline "
                + "again with this version (write `report.json` of a fresh `bootReport()` to it)."
        )
    }

    /// A build still running when a boot report's deadline came.
    static func stillBuilding(_ label: String, deadline: Duration, context: String) -> ContextError {
        ContextError(
            code: .buildTimedOut,
            requestedType: label,
            searchedContexts: [context],
            message: "the factory of '\(label)' was still running when the boot report of '\(context)' reached "
                + "its deadline of \(deadline); the report was made without waiting for it. Fix: find what the "
                + "factory waits for (a connection, a lock, a build of another task), or give `bootReport` a "
                + "longer deadline if it is merely slow.",
            resolutionPath: [label]
        )
    }
}
