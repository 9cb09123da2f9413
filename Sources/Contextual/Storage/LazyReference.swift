// `LazyReference`: a reference set at most once and read with one atomic load.
// Architecture: ARCHITECTURE.md, "Primitives".

import Synchronization

// MARK: - LazyReference

/// A reference set at most once (and taken out at most once, by an owner that is going away), read with
/// one atomic load: like `AtomicLazyReference`, whose `load()`
/// is not specialized across modules (a generic metadata lookup and a retain on every call), which the
/// read path cannot afford. It is not generic either, so that destroying one (in every context's
/// deinit) needs no metadata lookup; callers name the type they stored.
@usableFromInline
struct LazyReference: ~Copyable, Sendable {
    /// The bit pattern of an `Unmanaged` reference this holds +1, or 0.
    @usableFromInline
    let bits = Atomic<UInt>(0)

    @usableFromInline
    init() {}

    deinit {
        let bits = bits.load(ordering: .acquiring)
        // Releasing needs no type: every stored instance is a native Swift class.
        if bits != 0 { ReferenceWord.release(bits) }
    }

    /// Runs `body` on the instance, if set, without retaining it: it lives as long as this reference.
    ///
    /// - Precondition: the instance stored is an `Instance`; each reference stores one type only.
    @inlinable
    func withInstance<Instance: AnyObject, Result>(
        as type: Instance.Type,
        _ body: (Instance) -> Result
    ) -> Result? {
        let bits = bits.load(ordering: .acquiring)
        if bits == 0 { return nil }
        // Safe: see the precondition.
        return ReferenceWord.withInstance(bits, as: Instance.self, body)
    }

    /// Whether the instance set is `instance` (compared by address, without retaining either).
    @inlinable
    func holds(_ instance: AnyObject) -> Bool {
        bits.load(ordering: .acquiring) == ReferenceWord.unretained(instance)
    }

    /// The instance, if set.
    @inlinable
    func load<Instance: AnyObject>(as type: Instance.Type) -> Instance? {
        let bits = bits.load(ordering: .acquiring)
        if bits == 0 { return nil }
        return ReferenceWord.instance(bits, as: Instance.self)
    }

    /// Takes the instance out, if set, leaving this empty: the caller now holds the reference this held.
    ///
    /// - Precondition: the instance stored is an `Instance`; each reference stores one type only. Nothing
    ///   reads this reference concurrently (``withInstance(as:_:)`` and ``load(as:)`` hand out the
    ///   instance unretained): its owner is in its deinit.
    @usableFromInline
    func take<Instance: AnyObject>(as type: Instance.Type) -> Instance? {
        let bits = bits.exchange(0, ordering: .acquiringAndReleasing)
        if bits == 0 { return nil }
        return ReferenceWord.takeRetained(bits, as: Instance.self)
    }

    /// Sets the instance unless it was set, and returns the instance that is set.
    @inlinable
    func storeIfNil<Instance: AnyObject>(_ instance: Instance) -> Instance {
        let new = ReferenceWord.retained(instance)
        let (exchanged, current) = bits.compareExchange(
            expected: 0,
            desired: new,
            ordering: .acquiringAndReleasing
        )
        if exchanged { return instance }
        ReferenceWord.release(new)
        return ReferenceWord.instance(current, as: Instance.self)
    }
}
