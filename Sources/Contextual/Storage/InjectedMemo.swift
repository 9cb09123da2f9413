// What an `@Injected` property keeps between reads, so that a warm read is a couple of loads.
import Synchronization

// MARK: - InjectedMemo

/// What an ``Injected`` computed from its context's initial values, kept so that a warm read is two
/// loads. Set once; valid while the context reads its initial values (nothing in its tree was updated).
@usableFromInline
final class InjectedMemo<Value: Sendable>: Sendable {
    /// The bit pattern of an `Unmanaged<ValueBox<Value>>` this memo holds a +1 reference to, or 0.
    @usableFromInline
    let initialBits = Atomic<UInt>(0)
    /// Whether the initial values give this property something that may change between reads (a
    /// transient or scoped provider's object), which must then not be kept.
    @usableFromInline
    let readsUnstableEntries = Atomic<Bool>(false)
    /// Whether the property was read once from a chain with providers (whose first read is not kept).
    @usableFromInline
    let wasRead = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    deinit {
        let bits = initialBits.load(ordering: .acquiring)
        if bits != 0 { ReferenceWord.release(bits) }
        // No reader can be inside: each holds the property, which holds this memo.
        let published = publishedBits.load(ordering: .acquiring)
        if published != 0 {
            ReferenceWord.release(published)
        }
    }

    /// A value read from a published state (after a change in the tree), with the tree's generation it
    /// was read at: the bit pattern of an `Unmanaged<PublishedValue<Value>>` held +1, or 0. A replaced one
    /// is retired to the tree's read domain, since a reader may still be looking at it.
    @usableFromInline
    let publishedBits = Atomic<UInt>(0)

    /// The value kept from `context`'s current published state, if the tree has not changed since.
    @inlinable
    func publishedValue(in context: Context) -> Value? {
        let tree = context.tree
        let ticket = tree.readers.enter()
        defer { tree.readers.leave(ticket) }
        let bits = publishedBits.load(ordering: .acquiring)
        if bits == 0 { return nil }
        // Safe: a box replaced while this read section is open is released only after it is left.
        return ReferenceWord.withInstance(bits, as: PublishedValue<Value>.self) { kept in
            kept.generation == tree.generation.load(ordering: .sequentiallyConsistent) ? kept.value : nil
        }
    }

    /// Keeps `value`, read from the state of `generation`, in place of the value kept before.
    @usableFromInline
    func storePublished(_ value: Value, generation: UInt64, in tree: ContextTree) {
        let kept = ReferenceWord.retained(PublishedValue(value, generation: generation))
        let old = publishedBits.exchange(kept, ordering: .acquiringAndReleasing)
        if old != 0 { tree.readers.retire(ReferenceWord.takeRetained(old, as: PublishedValue<Value>.self)) }
    }

    @inlinable
    var initialValue: Value? {
        let bits = initialBits.load(ordering: .acquiring)
        return bits == 0 ? nil : unboxValue(bits, as: Value.self)
    }

    /// Stores `value` unless another reader stored first; returns what is stored.
    @usableFromInline
    func storeInitial(_ value: Value) -> Value {
        let bits = ReferenceWord.retained(ValueBox(value))
        let (exchanged, winner) = initialBits.compareExchange(
            expected: 0,
            desired: bits,
            ordering: .acquiringAndReleasing
        )
        if exchanged { return value }
        ReferenceWord.release(bits)
        return unboxValue(winner, as: Value.self)
    }
}

// MARK: - PublishedValue

/// A value `@Injected` read from a published state, and the tree's generation it belongs to.
@usableFromInline
final class PublishedValue<Value: Sendable>: Sendable {
    @usableFromInline
    let value: Value
    @usableFromInline
    let generation: UInt64

    init(_ value: Value, generation: UInt64) {
        self.value = value
        self.generation = generation
    }
}
