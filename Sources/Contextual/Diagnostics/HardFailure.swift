// `HardFailure`: how a read that cannot throw stops the process, at the user's line where it knows it.
// Architecture: ARCHITECTURE.md, "The read path".

// MARK: - InjectionSite

/// Where an `@Injected` property is declared: what a hard failure during its read is reported at.
protocol InjectionSite: AnyObject {
    /// The file (`#fileID`) and line of the property's declaration.
    var file: StaticString { get }
    var line: UInt { get }
}

// MARK: - HardFailure

/// Stops the process for a failure that a read cannot throw (a missing object, a provider that failed, a
/// cycle of defaults), with the error's message.
///
/// The message is located at the declaration of the `@Injected` property whose read the running thread
/// is evaluating, if any (``ThreadSlot/injectedRead``, which the property's read off the warm path
/// installs): that is the user's line, where the library's own line would tell them nothing. A read
/// through ``Context``'s API is located where the library stops.
///
/// ```swift
/// HardFailure.stop(.missingObject(Database.self, in: context))
/// ```
@usableFromInline
enum HardFailure {
    /// Stops the process with `error`'s message, located at the `@Injected` property being read, if any.
    @usableFromInline
    static func stop(_ error: ContextError, file: StaticString = #fileID, line: UInt = #line) -> Never {
        let word = ThreadSlot.injectedRead.word
        if word != 0 {
            // Safe: the word is the memo of the property whose read is running on this thread, which the
            // property holds for the read (see `Injected.readSlowly`).
            let reader = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: word)!).takeUnretainedValue()
            if let site = reader as? any InjectionSite {
                fatalError(error.description, file: site.file, line: site.line)
            }
        }
        fatalError(error.description, file: file, line: line)
    }
}
