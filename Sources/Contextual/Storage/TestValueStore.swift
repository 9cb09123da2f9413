// The store of one test context's test values, computed once per key per test context, behind a lock.

import Synchronization

// MARK: - TestValueStore

/// The test values one test context (and every context derived from it) has computed, read without a
/// lock as ``DefaultValueStore`` reads production defaults.
///
/// A computed value is published in an immutable ``FrozenTable`` behind an atomic word, so that a warm
/// read is one atomic load and one probe. A key whose test value is unimplemented is never published:
/// each read of it takes the slow path, which reports it.
@usableFromInline
final class TestValueStore: Sendable {
    /// The bit pattern of an `Unmanaged<TableBox>` kept alive by `state.published`.
    private let current: Atomic<UInt>
    private let state: Locked<State>

    private struct State {
        var cells: [StorageID: TestValueCell] = [:]
        var table: FrozenTable = .empty
        /// Every table ever published, kept so that a concurrent reader of an old one stays valid.
        var published: [TableBox] = []
    }

    init() {
        let initial = TableBox(.empty)
        self.current = Atomic(ReferenceWord.unretained(initial))
        self.state = Locked.make(State(published: [initial]))
    }

    /// The test value of `key`, computed on first use; reports `environment`'s unimplemented reads.
    @inlinable
    func value<Key: ContextKey>(for key: Key.Type, in environment: TestEnvironment) -> Key.Value {
        let raw = publishedBox(StorageID(key: key))
        if raw != 0 { return unboxValue(raw, as: Key.Value.self) }
        return computeAndPublish(key, in: environment)
    }

    /// The address of the box published under `id`, or 0: looked up in place, without copying the table
    /// (which would retain and release its storage).
    @usableFromInline
    func publishedBox(_ id: StorageID) -> UInt {
        let bits = current.load(ordering: .acquiring)
        // Safe: every published table, and the boxes it holds, is retained by `state.published` for the
        // store's lifetime.
        return ReferenceWord.withInstance(bits, as: TableBox.self) { $0.table.rawBox(id) }
    }

    @usableFromInline
    func computeAndPublish<Key: ContextKey>(_ key: Key.Type, in environment: TestEnvironment) -> Key.Value {
        let id = StorageID(key: key)
        let cell = state.withLock { state in
            if let cell = state.cells[id] { return cell }
            let cell = TestValueCell()
            state.cells[id] = cell
            return cell
        }
        let computed = cell.value {
            let mark = UnimplementedMark()
            let box = UnimplementedMark.$current.withValue(mark) {
                ObservationRecorder.withoutRecording { ValueBox(Key.testValue) }
            }
            return (box, mark.isSet)
        }
        if computed.isUnimplemented {
            environment.reportUnimplementedRead(of: key)
        } else if computed.isNew {
            state.withLock { state in
                state.table = state.table.setting(id, to: computed.box)
                let published = TableBox(state.table)
                state.published.append(published)
                current.store(ReferenceWord.unretained(published), ordering: .releasing)
            }
        }
        return unboxValue(address(of: computed.box), as: Key.Value.self)
    }
}

// MARK: - TestValueCell

/// The once-only slot of one key's test value in one test context, and whether it is unimplemented.
final class TestValueCell: Sendable {
    private let stored = Locked<(box: any ContextBox, isUnimplemented: Bool)?>.make(nil)

    /// The stored box, computing it with `make` if this is the first call (`isNew` is then true). `make`
    /// runs under this key's lock alone: concurrent first readers wait for one computation.
    func value(
        _ make: () -> (box: any ContextBox, isUnimplemented: Bool)
    ) -> (box: any ContextBox, isUnimplemented: Bool, isNew: Bool) {
        stored.withLock { stored in
            if let stored { return (stored.box, stored.isUnimplemented, false) }
            let made = make()
            stored = made
            return (made.box, made.isUnimplemented, true)
        }
    }
}

// MARK: - UnimplementedMark

/// Set by ``ContextKey/unimplemented()`` while a test value is computed: the key is then unimplemented.
final class UnimplementedMark: Sendable {
    /// The mark of the test value being computed on this task, if any.
    @TaskLocal static var current: UnimplementedMark?

    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .relaxed) }

    func mark() {
        flag.store(true, ordering: .relaxed)
    }
}
