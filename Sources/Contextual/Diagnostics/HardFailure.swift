// `HardFailure`: how a read that cannot throw stops the process, at the user's line where it knows it.
// Architecture: ARCHITECTURE.md, "The read path".

// MARK: - HardFailure

/// Stops the process for a failure that a read cannot throw (a missing object, a provider that failed, a
/// cycle of defaults), with the error's message, located at `file` and `line`.
///
/// An `@Injected` property read by type passes its declaration (its initializer's `#fileID` and `#line`)
/// where its own code meets the failure, so that a missing object (and a failing provider, read from the
/// initial values) is reported at the user's line, where the library's own line would tell them nothing.
/// Other failures are located where the library stops.
///
/// ```swift
/// HardFailure.stop(.missingObject(Database.self, in: context), file: memo.file, line: memo.line)
/// ```
@usableFromInline
enum HardFailure {
    /// Stops the process with `error`'s message, located at `file` and `line`.
    @usableFromInline
    static func stop(_ error: ContextError, file: StaticString = #fileID, line: UInt = #line) -> Never {
        fatalError(error.description, file: file, line: line)
    }
}
