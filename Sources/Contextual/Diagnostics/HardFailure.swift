// `HardFailure`: how a read that cannot throw stops the process, at the user's line where it knows it.
// Architecture: ARCHITECTURE.md, "The read path".

// MARK: - HardFailure

/// Stops the process for a failure that a read cannot throw (a missing object, a provider that failed, a
/// cycle of defaults), with the error's message, located at the user's line where the library knows it.
///
/// A read of an `@Injected` property that may reach a provider installs the property as the thread's
/// ``ThreadSlot/injectedRead`` (see `Injected.readSlowly`), and a failure of that read (a provider behind
/// a key path that throws, an object missing or failing after an update) is located where the property
/// is declared (its initializer's `#fileID` and `#line`): the library's own line would tell the reader
/// nothing. A factory runs with the word cleared, so a failure in its own code is located by that code.
/// Elsewhere the failure is located at `file` and `line`: an `@Injected` read by type from the initial
/// values passes its declaration there itself.
///
/// ```swift
/// HardFailure.stop(.missingObject(Database.self, in: context), file: memo.file, line: memo.line)
/// ```
@usableFromInline
enum HardFailure {
    /// Stops the process with `error`'s message, located where the running thread's `@Injected` read is
    /// declared, if it is in one, else at `file` and `line`.
    @usableFromInline
    static func stop(_ error: ContextError, file: StaticString = #fileID, line: UInt = #line) -> Never {
        if let declaration = injectedDeclaration() {
            fatalError(error.description, file: declaration.file, line: declaration.line)
        }
        fatalError(error.description, file: file, line: line)
    }

    /// Where the `@Injected` property the running thread reads is declared, if it is in such a read.
    private static func injectedDeclaration() -> (file: StaticString, line: UInt)? {
        let word = ThreadSlot.injectedRead.word
        guard word != 0 else { return nil }
        // Safe: the read installed its memo, which its property keeps alive for the read (see
        // `Injected.readSlowly`); the read is running on this thread, which is the one stopping.
        let memo = ReferenceWord.instance(word, as: AnyObject.self)
        guard let declared = memo as? any InjectedDeclaration else { return nil }
        return (declared.file, declared.line)
    }
}
