// `ShutdownOpener`: how a provider sees an object it built as a `ScopeShutdown` without a dynamic cast.
// Architecture: ARCHITECTURE.md, "Shutdown".

// MARK: - ShutdownOpener

/// Turns an object of one concrete class that adopts ``ScopeShutdown`` into an `any ScopeShutdown`,
/// with the conformance found once: a provider whose objects adopt it (a request's unit of work) would
/// otherwise pay for a dynamic cast, a search of the conformance tables, on every build.
///
/// ```swift
/// let opener = ShutdownOpener(unitOfWork)          // one dynamic cast, when made
/// opener.open(otherUnitOfWork)                     // none: the witness is known
/// ```
@usableFromInline
final class ShutdownOpener: Sendable {
    /// The concrete class this opener opens, as `ObjectIdentifier(type(of:))`'s bits.
    @usableFromInline
    let typeBits: UInt
    /// `object` as an `any ScopeShutdown`, with the conformance of the class it was made for.
    @usableFromInline
    let open: @Sendable (AnyObject) -> any ScopeShutdown

    /// An opener for the class of `object`.
    @usableFromInline
    init(_ object: any ScopeShutdown) {
        typeBits = UInt(bitPattern: ObjectIdentifier(type(of: object)))
        open = ShutdownOpener.opener(opening: object)
    }

    private static func opener<Object: ScopeShutdown>(
        opening object: Object
    ) -> @Sendable (AnyObject) -> any ScopeShutdown {
        // Safe: `shutdownObject` opens only objects whose class is `typeBits`, that is `Object`.
        { ReferenceWord.downcast($0, to: Object.self) }
    }
}
