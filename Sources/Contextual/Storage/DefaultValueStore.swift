// Values computed once per key: the process-wide defaults, or one test context's test values.
// Architecture: ARCHITECTURE.md, "Default values and test values".

import Synchronization

// MARK: - DefaultValueStore

/// Values computed once per key: the process-wide cache of ``ContextKey/defaultValue``s (``shared``), or
/// one test context's ``ContextKey/testValue``s (each `TestEnvironment` has a store of its own). One
/// mechanism for both, so that a test value that reads itself is found as a default that does is.
///
/// Reading a value that was already computed takes no lock: the store publishes a ``DefaultSlots`` table
/// through an atomic word, and readers load it and probe it. A value computed is inserted into that
/// table behind the lock; a full table is replaced by one twice as large, and the store keeps the tables
/// it replaced, so a reader that loaded an older one keeps reading valid memory: under eight slots per
/// key computed, in all (16 for the first 8 keys).
///
/// Computing a value runs user code, so it happens outside the store's lock, in that key's
/// ``DefaultCell``: concurrent first readers of one key wait for the one computation; readers of other keys
/// do not. A value that reads its own key, directly or through other keys' values, would wait for
/// itself: the cell finds the loop before waiting (see ``DefaultFrame``) and stops the process with
/// ``ContextError/Code/defaultCycle``. A test value that is unimplemented is never published: each read of
/// it takes the slow path, which reports it.
@usableFromInline
final class DefaultValueStore: Sendable {
    /// The store every context that is not a test context reads unset keys from: their defaults, or,
    /// in a test runner (``TestProcess``), their test values, so that a test without a test context
    /// never reaches a live service. Which of the two is decided once, when it is made.
    @usableFromInline
    static let shared = DefaultValueStore(holdsTestValues: TestProcess.isRunningTests)

    /// The store of defaults that a live context (``Context/live(name:_:)``) reads: ``shared`` outside a
    /// test runner, a store of its own inside one.
    @usableFromInline
    static let live = shared.holdsTestValues ? DefaultValueStore(holdsTestValues: false) : shared

    /// Whether it holds test values rather than defaults: a test context's, or, in a test runner, the
    /// process-wide store's.
    let holdsTestValues: Bool

    /// The bit pattern of an `Unmanaged<DefaultSlots>` kept alive by `state.table`.
    private let current: Atomic<UInt>
    private let state: Locked<State>

    private struct State {
        /// One per key asked, holding its computed value's box (so the tables' addresses stay valid).
        var cells: [StorageID: DefaultCell] = [:]
        /// The table readers load.
        var table: DefaultSlots
        /// The tables it replaced, kept so that a concurrent reader of an old one stays valid.
        var replaced: [DefaultSlots] = []
        /// The boxes of values forgotten by `resetForTesting`, which a replaced table may still name.
        var forgotten: [any ContextBox] = []
    }

    init(holdsTestValues: Bool) {
        self.holdsTestValues = holdsTestValues
        let initial = DefaultSlots(capacity: 16)
        self.current = Atomic(ReferenceWord.unretained(initial))
        self.state = Locked.make(State(table: initial))
    }

    // MARK: - Reading

    /// The default value of `key`, computed on first use.
    @inlinable
    func value<Key: ContextKey>(for key: Key.Type) -> Key.Value {
        let raw = publishedBox(StorageID(key: key))
        if raw != 0 { return unboxValue(raw, as: Key.Value.self) }
        return computeAndPublish(key)
    }

    /// The address of the box published under `id`, or 0: looked up in place, without copying the table
    /// (which would retain and release its storage).
    @usableFromInline
    func publishedBox(_ id: StorageID) -> UInt {
        // Acquiring: a table published (releasing) is seen initialized.
        let bits = current.load(ordering: .acquiring)
        // Safe: every table published, and the boxes it names, is retained by `state` for the store's
        // lifetime.
        return ReferenceWord.withInstance(bits, as: DefaultSlots.self) { $0.box(id.raw) }
    }

    @usableFromInline
    func computeAndPublish<Key: ContextKey>(_ key: Key.Type) -> Key.Value {
        // The process-wide store of a test runner: test values, an unimplemented one reported by a print.
        if holdsTestValues { return computeTestValue(key) { UnimplementedRead.print(.outsideTestContext(key)) } }
        let computed = value(of: key) { (ObservationRecorder.withoutRecording { ValueBox(Key.defaultValue) }, false) }
        return unboxValue(address(of: computed.box), as: Key.Value.self)
    }

    /// The value of `key`, computed by `make` on first use (with whether it is unimplemented) and then
    /// published unless it is unimplemented.
    func value<Key: ContextKey>(
        of key: Key.Type,
        computedBy make: () -> (box: any ContextBox, isUnimplemented: Bool)
    ) -> (box: any ContextBox, isUnimplemented: Bool) {
        let id = StorageID(key: key)
        let cell = state.withLock { state in
            if let cell = state.cells[id] { return cell }
            let cell = DefaultCell(key: key, isTestValue: holdsTestValues)
            state.cells[id] = cell
            return cell
        }
        let computed = cell.value(make)
        if computed.isNew && !computed.isUnimplemented {
            state.withLock { state in
                // A test's reset may have dropped this cell meanwhile: its box is then kept, not published.
                guard state.cells[id] === cell else { return state.forgotten.append(computed.box) }
                publish(id, box: computed.box, in: &state)
            }
        }
        return (computed.box, computed.isUnimplemented)
    }

    /// Publishes `box` under `id`: into the current table when it has room, else into a table twice as
    /// large that replaces it. The caller holds the lock.
    private func publish(_ id: StorageID, box: any ContextBox, in state: inout State) {
        if state.table.hasRoom {
            state.table.insert(id.raw, box: address(of: box))
        } else {
            replace(with: state.table.copy(adding: id.raw, box: address(of: box)), in: &state)
        }
    }

    /// Makes `table` the one readers load; the caller holds the lock. The one it replaces is kept for the
    /// store's lifetime: a reader that loaded it may still be probing it. Releasing: a reader that loads
    /// the new table (acquiring) sees its slots whole.
    private func replace(with table: DefaultSlots, in state: inout State) {
        state.replaced.append(state.table)
        state.table = table
        current.store(ReferenceWord.unretained(table), ordering: .releasing)
    }

    // MARK: - Testing

    /// The slots of every table the store keeps, for tests of its memory.
    var keptSlotCount: Int {
        state.withLock { state in state.replaced.reduce(state.table.capacity) { $0 + $1.capacity } }
    }

    /// Forgets the computed default of `key`, so that its next read computes it again. For tests only:
    /// it forgets one key, so that tests running in parallel on other keys are not disturbed.
    func resetForTesting<Key: ContextKey>(_ key: Key.Type) {
        let id = StorageID(key: key)
        state.withLock { state in
            if let box = state.cells.removeValue(forKey: id)?.computedBox { state.forgotten.append(box) }
            guard state.table.box(id.raw) != 0 else { return }
            replace(with: state.table.copy(removing: id.raw), in: &state)
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
        /// The value, and whether it is an unimplemented test value (which every read reports).
        case computed(any ContextBox, isUnimplemented: Bool)
    }

    /// The key, for messages.
    private let key: Any.Type
    /// Whether the value is a test value rather than a default, for messages.
    let isTestValue: Bool

    init(key: Any.Type, isTestValue: Bool) {
        self.key = key
        self.isTestValue = isTestValue
        super.init(.empty)
    }

    /// The key's name in messages, e.g. `ThemeKey`.
    var label: String { TypeMetadata.name(of: key) }

    /// The box of the value, once computed.
    var computedBox: (any ContextBox)? {
        withLock { state in
            if case .computed(let box, _) = state { return box }
            return nil
        }
    }

    /// The frame computing the value, while it is computed.
    var computer: DefaultFrame? {
        withLock { state in
            if case .computing(let frame) = state { return frame }
            return nil
        }
    }

    /// The stored box, computing it with `make` if this is the first call; `isNew` is true for the caller
    /// that computed it. A caller that finds the value being computed waits for it, unless waiting would
    /// close a loop of values: then the process stops with the loop.
    func value(
        _ make: () -> (box: any ContextBox, isUnimplemented: Bool)
    ) -> (box: any ContextBox, isUnimplemented: Bool, isNew: Bool) {
        typealias Computed = (box: any ContextBox, isUnimplemented: Bool)
        enum Claim {
            case computed(Computed)
            case compute(DefaultFrame)
            case wait(DefaultFrame)
        }
        let claim = withLock { state -> Claim in
            switch state {
            case .computed(let box, let isUnimplemented): return .computed((box, isUnimplemented))
            case .computing(let frame): return .wait(frame)
            case .empty:
                let frame = DefaultFrame(cell: self, parent: DefaultFrame.current)
                state = .computing(frame)
                return .compute(frame)
            }
        }
        switch claim {
        case .computed(let computed):
            return (computed.box, computed.isUnimplemented, false)
        case .compute(let frame):
            let made = DefaultFrame.withCurrent(frame, make)
            withLockBroadcasting { $0 = .computed(made.box, isUnimplemented: made.isUnimplemented) }
            return (made.box, made.isUnimplemented, true)
        case .wait(let computer):
            DefaultFrame.block(on: self, computedBy: computer)
            defer { DefaultFrame.unblock() }
            let computed = wait { state -> Computed? in
                if case .computed(let box, let isUnimplemented) = state { return (box, isUnimplemented) }
                return nil
            }
            return (computed.box, computed.isUnimplemented, false)
        }
    }
}
