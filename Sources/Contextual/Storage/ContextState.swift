// `ContextState`: one published, immutable state of a context, and the flattening of its tables.
// Architecture: ARCHITECTURE.md, "Contexts, states and generations".

import Synchronization

// MARK: - ContextState

/// What one context holds at one moment: immutable, replaced as a whole when the context or one of its
/// ancestors changes.
@usableFromInline
final class ContextState: Sendable {
    /// The values. The first stored property, so that ``valuesAddress`` finds them.
    let values: ContextValues
    /// The tree's generation this state was built against; a state is current while they are equal.
    @usableFromInline
    let generation: UInt64
    private let flattenedCache = LazyReference()

    init(values: consuming ContextValues, generation: UInt64) {
        self.values = consume values
        self.generation = generation
    }

    /// The address of ``values``, which stays put for the state's life (an object does not move), so that
    /// a key-path read can apply its key path to them in place, without copying them (and counting their
    /// references). Kept in the object rather than in memory of their own: one allocation per state,
    /// not two (a state is made per update, and per context that reads after one).
    @usableFromInline
    var valuesAddress: UnsafePointer<ContextValues> {
        // Safe: `values` is the first stored property of this final class, so it starts where the stored
        // properties do (an address aligned for any of them); it is a constant, never written after
        // `init`. `ContextStateLayoutTests` checks that the address reads the same values.
        UnsafeRawPointer(_getUnsafePointerToStoredProperties(self)).assumingMemoryBound(to: ContextValues.self)
    }

    /// Everything this state holds in one table, for children to inherit; merged once, on first use.
    var flattened: FrozenTable {
        values.flattened(cachedIn: flattenedCache)
    }
}

// MARK: - Flattening

extension ContextValues {
    /// Everything these values hold in one table (own entries over inherited ones), for children to
    /// inherit; merged once and kept in `cache` when both parts have entries. Container values and
    /// preferences are left out: they are about this context only.
    @usableFromInline
    func flattened(cachedIn cache: borrowing LazyReference) -> FrozenTable {
        FrozenTable.flattening(own, over: inherited, cachedIn: cache)
    }
}

extension FrozenTable {
    /// `own` over `inherited` in one table, without `own`'s local entries; merged once and kept in `cache`
    /// when both have entries. Takes the two tables rather than their values, so that a context can pass
    /// its own in place, uncopied.
    @inline(__always)
    static func flattening(
        _ own: borrowing FrozenTable,
        over inherited: borrowing FrozenTable,
        cachedIn cache: borrowing LazyReference
    ) -> FrozenTable {
        if own.count == 0 { return copy inherited }
        if inherited.count == 0 && !own.hasLocalEntries { return copy own }
        if let cached = cache.withInstance(as: TableBox.self, { $0.table }) { return cached }
        return cache.storeIfNil(TableBox(FrozenTable.merging(copy inherited, overriddenBy: own.inheritable))).table
    }
}

// MARK: - TableBox

/// A frozen table behind a class reference, for set-once caching (a state's merged inherited table).
@usableFromInline
final class TableBox: Sendable {
    @usableFromInline
    let table: FrozenTable

    init(_ table: FrozenTable) {
        self.table = table
    }
}
