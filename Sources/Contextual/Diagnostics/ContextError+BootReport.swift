// The errors of boot reports: a baseline of another format, not a report or breaking its rules, a build still
// running at the deadline.

// MARK: - Boot report errors

extension ContextError {
    /// A baseline written in format `found`, which this library (format `expected`) does not read.
    static func bootReportFormat(found: Int, expected: Int, origin: BootReport.Origin) -> ContextError {
        ContextError(
            code: .incompatibleBootReport,
            requestedType: "BootReport",
            searchedContexts: [],
            message: "\(origin.opening("the boot report")) is in format version \(found), but this version of "
                + "Contextual reads and writes format version \(expected): the two cannot be compared. Fix: make "
                + "the baseline again with this version (\(origin.recording))."
        )
    }

    /// A text that is not a boot report at all, for the decoder's `error`, told in words.
    static func unreadableBootReport(origin: BootReport.Origin, decoding error: any Error) -> ContextError {
        unreadableBootReport(origin: origin, reason: decodingProblem(error), underlying: error)
    }

    /// A text that is not a boot report at all, for `reason` (e.g. "it is empty").
    static func unreadableBootReport(
        origin: BootReport.Origin,
        reason: String,
        underlying: (any Error)?
    ) -> ContextError {
        ContextError(
            code: .incompatibleBootReport,
            requestedType: "BootReport",
            searchedContexts: [],
            message: "\(origin.opening("the text")) is not a boot report of format version "
                + "\(BootReport.currentFormatVersion): \(reason). Fix: give the text that `BootReport.json` or "
                + "`write(toFile:)` writes, or make the baseline again (\(origin.recording)).",
            underlyingErrors: underlying.map { [$0] } ?? []
        )
    }

    /// A text that reads as a report of this format version, but breaks one of its rules (`violation`):
    /// edited by hand or corrupted, for `BootReport.json` never writes one.
    static func invalidBootReport(origin: BootReport.Origin, violation: BootReport.FormatViolation) -> ContextError {
        ContextError(
            code: .incompatibleBootReport,
            requestedType: "BootReport",
            searchedContexts: [],
            message: "\(origin.opening("the boot report")) breaks the rules of format version "
                + "\(BootReport.currentFormatVersion): `\(violation.field)` \(violation.problem). A report written by "
                + "`BootReport.json` never does: the file was edited by hand or is corrupt. Fix: make the baseline "
                + "again with this version (\(origin.recording))."
        )
    }

    // MARK: - Decoding problems in words

    /// What the decoder found wrong, in words: the field by its path in the JSON (`providers[2].builds`)
    /// and what it holds or lacks, without the decoder's own wording or Swift's type names.
    private static func decodingProblem(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "it could not be decoded" }
        switch error {
        case .keyNotFound(let key, let context):
            return "`\(fieldPath(context.codingPath + [key]))` is missing"
        case .typeMismatch(let type, let context):
            guard !context.codingPath.isEmpty else { return topLevelProblem }
            return "`\(fieldPath(context.codingPath))` is not \(kind(of: type))"
        case .valueNotFound(let type, let context):
            guard !context.codingPath.isEmpty else { return topLevelProblem }
            return "`\(fieldPath(context.codingPath))` is null, where \(kind(of: type)) belongs"
        case .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else {
                return "its text is cut short or corrupt: it does not parse as the JSON a boot report is written in"
            }
            return "`\(fieldPath(context.codingPath))` holds a value its field does not take"
        @unknown default:
            return "it could not be decoded"
        }
    }

    /// The problem of a text whose top level is not an object: a list, a number, a string.
    private static let topLevelProblem =
        "it holds no object with a boot report's fields (`formatVersion`, `context`, `providers`, …) at its top level"

    /// A field's path as the format's rules name it: `providers[2].builds`.
    private static func fieldPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    /// What a field of `type` holds, in words: "a whole number", "a string", "a list".
    private static func kind(of type: Any.Type) -> String {
        if type == Int.self { return "a whole number" }
        if type == Double.self { return "a number" }
        if type == String.self { return "a string" }
        if type == Bool.self { return "true or false" }
        if TypeMetadata.name(of: type).hasPrefix("Array<") { return "a list" }
        return "an object with named fields"
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
