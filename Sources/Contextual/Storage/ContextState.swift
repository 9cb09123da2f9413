import Synchronization

// MARK: - ContextState

/// What one context holds at one moment: immutable, replaced as a whole when the context or one of its
/// ancestors changes.
@usableFromInline
final class ContextState: Sendable {
    @usableFromInline
    let values: ContextValues
    /// The tree's generation this state was built against; a state is current while they are equal.
    @usableFromInline
    let generation: UInt64
    private let flattenedCache = AtomicLazyReference<TableBox>()

    init(values: ContextValues, generation: UInt64) {
        self.values = values
        self.generation = generation
    }

    /// Everything this state holds in one table, for children to inherit; merged once, on first use.
    var flattened: FrozenTable {
        if values.own.count == 0 { return values.inherited }
        if values.inherited.count == 0 { return values.own }
        if let cached = flattenedCache.load() { return cached.table }
        let merged = TableBox(FrozenTable.merging(values.inherited, overriddenBy: values.own))
        return flattenedCache.storeIfNil(merged).table
    }
}

// MARK: - ContextTree

/// What all the contexts derived from one root share: a generation counter that moves on every change
/// anywhere in the tree, and the reclamation domain of their states.
@usableFromInline
final class ContextTree: Sendable {
    @usableFromInline
    let generation = Atomic<UInt64>(0)
    @usableFromInline
    let readers = ReadDomain()
    /// The subscribers to context entries anywhere in the tree, by entry identity.
    let observers = ObservationRegistry()

    init() {}
}
