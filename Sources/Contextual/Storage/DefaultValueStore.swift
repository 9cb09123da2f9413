// The process-wide store of key defaults, computed once per key, behind a lock.

import Synchronization

// MARK: - DefaultValueStore

/// The process-wide cache of computed ``ContextKey/defaultValue``s.
///
/// Reading a default that was already computed takes no lock: the store publishes an immutable
/// ``FrozenTable`` through an atomic word, and readers load it. Publishing a new table (once per key per
/// process) happens behind the lock; every table ever published stays retained by the store, so a reader
/// that loaded an older one keeps reading valid memory. Their total size is bounded by the number of key
/// types in the program.
///
/// Computing a default runs user code, so it happens outside the store's lock, under a lock of that key
/// alone: concurrent first readers of one key wait for the one computation; readers of other keys do not.
@usableFromInline
final class DefaultValueStore: Sendable {
    /// The cache every context reads from.
    @usableFromInline
    static let shared = DefaultValueStore()

    /// The bit pattern of an `Unmanaged<TableBox>` kept alive by `state.published`.
    private let current: Atomic<UInt>
    private let state: Locked<State>

    private struct State {
        var cells: [StorageID: DefaultCell] = [:]
        var table: FrozenTable = .empty
        /// Every table ever published, kept so that a concurrent reader of an old one stays valid.
        var published: [TableBox] = []
    }

    init() {
        let initial = TableBox(.empty)
        self.current = Atomic(ReferenceWord.unretained(initial))
        self.state = Locked(State(published: [initial]))
    }

    // MARK: - Reading

    /// The default value of `key`, computed on first use.
    @inlinable
    func value<Key: ContextKey>(for key: Key.Type) -> Key.Value {
        if let value = publishedTable().value(StorageID(key: key), as: Key.Value.self) { return value }
        return computeAndPublish(key)
    }

    @usableFromInline
    func publishedTable() -> FrozenTable {
        let bits = current.load(ordering: .acquiring)
        // Safe: every published table is retained by `state.published` for the store's lifetime.
        return ReferenceWord.withInstance(bits, as: TableBox.self) { $0.table }
    }

    @usableFromInline
    func computeAndPublish<Key: ContextKey>(_ key: Key.Type) -> Key.Value {
        let id = StorageID(key: key)
        let cell = state.withLock { state in
            if let cell = state.cells[id] { return cell }
            let cell = DefaultCell()
            state.cells[id] = cell
            return cell
        }
        let (box, isNew) = cell.valueBox { ValueBox(Key.defaultValue) }
        if isNew {
            state.withLock { state in
                state.table = state.table.setting(id, to: box)
                let published = TableBox(state.table)
                state.published.append(published)
                current.store(
                    ReferenceWord.unretained(published),
                    ordering: .releasing
                )
            }
        }
        return unboxValue(address(of: box), as: Key.Value.self)
    }

    // MARK: - Testing

    /// Forgets the computed default of `key`, so that its next read computes it again. For tests only:
    /// it forgets one key, so that tests running in parallel on other keys are not disturbed.
    func resetForTesting<Key: ContextKey>(_ key: Key.Type) {
        let id = StorageID(key: key)
        state.withLock { state in
            state.cells[id] = nil
            state.table = state.table.removing(id)
            let published = TableBox(state.table)
            state.published.append(published)
            current.store(ReferenceWord.unretained(published), ordering: .releasing)
        }
    }
}

// MARK: - DefaultCell

/// The once-only slot of one key's default value.
final class DefaultCell: Sendable {
    private let box = Locked<(any ContextBox)?>(nil)

    /// The stored box, computing it with `make` if this is the first call; `isNew` is true for the caller
    /// that computed it.
    func valueBox(_ make: () -> any ContextBox) -> (box: any ContextBox, isNew: Bool) {
        box.withLock { stored in
            if let stored { return (stored, false) }
            let made = make()
            stored = made
            return (made, true)
        }
    }
}

// MARK: - TableBox

/// A frozen table behind a class reference, for atomic publication and set-once caching.
@usableFromInline
final class TableBox: Sendable {
    @usableFromInline
    let table: FrozenTable

    init(_ table: FrozenTable) {
        self.table = table
    }
}
