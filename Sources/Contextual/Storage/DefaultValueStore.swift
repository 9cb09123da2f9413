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
/// Computing a default runs user code, so it happens outside the store's lock, in that key's
/// ``DefaultCell``: concurrent first readers of one key wait for the one computation; readers of other keys
/// do not. A default that reads its own key, directly or through other keys' defaults, would wait for
/// itself: the cell finds the loop before waiting (see ``DefaultFrame``) and stops the process with
/// ``ContextError/Code/defaultCycle``.
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
        self.state = Locked.make(State(published: [initial]))
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
            let cell = DefaultCell(key: key)
            state.cells[id] = cell
            return cell
        }
        let (box, isNew) = cell.valueBox { ObservationRecorder.withoutRecording { ValueBox(Key.defaultValue) } }
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

/// The once-only slot of one key's default value: computed by the first reader, outside every lock,
/// while later readers wait for it.
///
/// `@unchecked Sendable`: it is its own ``ConditionLocked`` state, touched only under its lock; `key` is
/// a constant.
final class DefaultCell: ConditionLocked<DefaultCell.State>, @unchecked Sendable {
    enum State {
        case empty
        /// A thread is computing the value; `DefaultFrame` says which, for loop detection.
        case computing(DefaultFrame)
        case computed(any ContextBox)
    }

    /// The key, for messages.
    private let key: Any.Type

    init(key: Any.Type) {
        self.key = key
        super.init(.empty)
    }

    /// The key's name in messages, e.g. `ThemeKey`.
    var label: String { String(describing: key) }

    /// The frame computing the value, while it is computed.
    var computer: DefaultFrame? {
        withLock { state in
            if case .computing(let frame) = state { return frame }
            return nil
        }
    }

    /// The stored box, computing it with `make` if this is the first call; `isNew` is true for the caller
    /// that computed it. A caller that finds the value being computed waits for it, unless waiting would
    /// close a loop of defaults: then the process stops with the loop.
    func valueBox(_ make: () -> any ContextBox) -> (box: any ContextBox, isNew: Bool) {
        enum Claim {
            case computed(any ContextBox)
            case compute(DefaultFrame)
            case wait(DefaultFrame)
        }
        let claim = withLock { state -> Claim in
            switch state {
            case .computed(let box): return .computed(box)
            case .computing(let frame): return .wait(frame)
            case .empty:
                let frame = DefaultFrame(cell: self, parent: DefaultFrame.current)
                state = .computing(frame)
                return .compute(frame)
            }
        }
        switch claim {
        case .computed(let box):
            return (box, false)
        case .compute(let frame):
            let made = DefaultFrame.withCurrent(frame, make)
            withLockBroadcasting { $0 = .computed(made) }
            return (made, true)
        case .wait(let computer):
            DefaultFrame.block(on: self, computedBy: computer)
            defer { DefaultFrame.unblock() }
            let box = wait { state -> (any ContextBox)? in
                if case .computed(let box) = state { return box }
                return nil
            }
            return (box, false)
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
