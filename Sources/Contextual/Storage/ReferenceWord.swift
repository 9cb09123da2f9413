// The one place where a class reference becomes a machine word and back, for atomics and tagged tables.
// Architecture: ARCHITECTURE.md, "Primitives".

// MARK: - ReferenceWord

/// Converts class references to and from words (their addresses), so that they can sit in an
/// `Atomic<UInt>`, carry tag bits, or be held without the compiler's reference counting.
///
/// Every conversion is unchecked: the caller knows which class a word holds and who holds its +1
/// reference. 0 stands for no reference; the functions that take a word require a non-zero one.
///
/// ```swift
/// let word = ReferenceWord.retained(state)  // +1, held by the word
/// ReferenceWord.withInstance(word, as: ContextState.self) { $0.generation }
/// ReferenceWord.release(word)
/// ```
@usableFromInline
enum ReferenceWord {
    /// The word of `instance`, which now holds a +1 reference to it.
    @inlinable
    static func retained<Instance: AnyObject>(_ instance: Instance) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(instance).toOpaque())
    }

    /// The word of `instance`, taking over the caller's reference to it: the word now holds it (+1), and
    /// neither a retain nor a release runs when the caller hands over its last use.
    @inlinable
    static func transferred<Instance: AnyObject>(_ instance: consuming Instance) -> UInt {
        UInt(bitPattern: Unmanaged.passRetained(instance).toOpaque())
    }

    /// The word of `instance`, holding no reference: valid while something else keeps it alive.
    @inlinable
    static func unretained<Instance: AnyObject>(_ instance: Instance) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(instance).toOpaque())
    }

    /// The instance at `word`, as an unmanaged reference.
    ///
    /// - Precondition: `word` is non-zero and holds an `Instance` that is alive.
    @inlinable
    static func unmanaged<Instance: AnyObject>(_ word: UInt, as type: Instance.Type) -> Unmanaged<Instance> {
        // Safe: see the precondition.
        Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped)
    }

    /// The instance at `word`, as a new strong reference; the word's own reference (if any) is kept.
    ///
    /// - Precondition: as ``unmanaged(_:as:)``.
    @inlinable
    static func instance<Instance: AnyObject>(_ word: UInt, as type: Instance.Type) -> Instance {
        unmanaged(word, as: type).takeUnretainedValue()
    }

    /// The instance at `word`, taking over the +1 reference the word held.
    ///
    /// - Precondition: as ``unmanaged(_:as:)``, and the word held a +1 reference.
    @inlinable
    static func takeRetained<Instance: AnyObject>(_ word: UInt, as type: Instance.Type) -> Instance {
        unmanaged(word, as: type).takeRetainedValue()
    }

    /// Runs `body` on the instance at `word` without retaining it: the caller guarantees it stays alive
    /// for the call.
    ///
    /// - Precondition: as ``unmanaged(_:as:)``.
    @inlinable
    static func withInstance<Instance: AnyObject, Result>(
        _ word: UInt,
        as type: Instance.Type,
        _ body: (Instance) throws -> Result
    ) rethrows -> Result {
        try unmanaged(word, as: type)._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` on the instance `owner` holds (`load` reads it from one of `owner`'s stored
    /// properties) without retaining it: an optimized build neither retains nor releases it. `owner` is
    /// kept alive for the call, so a temporary owner is safe too.
    ///
    /// For a wrapper's reference read out of a class's `var` on a hot path.
    ///
    /// - Precondition: nothing in `body` replaces the property `load` reads (`body` runs no code of the
    ///   owner's).
    @inlinable @inline(__always)
    static func withHeldInstance<Owner: AnyObject, Instance: AnyObject, Result>(
        in owner: Owner,
        loading load: (Owner) -> Instance,
        reading body: (Instance) throws -> Result
    ) rethrows -> Result {
        try withExtendedLifetime(owner) {
            try withInstance(unretained(load(owner)), as: Instance.self, body)
        }
    }

    /// Adds a reference to the instance at `word`.
    ///
    /// - Precondition: as ``unmanaged(_:as:)``.
    @inlinable
    static func retain(_ word: UInt) {
        _ = unmanaged(word, as: AnyObject.self).retain()
    }

    /// `object` as an `Instance`, without the dynamic check of `as!`.
    ///
    /// - Precondition: `object` is an `Instance`; the caller knows it from where it stored it.
    @inlinable
    static func downcast<Instance: AnyObject>(_ object: AnyObject, to type: Instance.Type) -> Instance {
        unsafeDowncast(object, to: type)
    }

    /// Drops the +1 reference `word` holds, if it is not 0. Needs no type: every instance stored in a word
    /// is a native Swift class.
    @inlinable
    static func release(_ word: UInt) {
        if word != 0 { unmanaged(word, as: AnyObject.self).release() }
    }
}
