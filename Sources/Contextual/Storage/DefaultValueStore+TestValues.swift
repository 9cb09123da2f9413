// Reading one test context's test values, from a store of its own (a ``DefaultValueStore``).
// Architecture: ARCHITECTURE.md, "Default values and test values".

import Synchronization

// MARK: - Test values

extension DefaultValueStore {
    /// The test value of `key`, computed on first use (as a default is, with the same loop detection);
    /// reports `environment`'s unimplemented reads, every time.
    @inlinable
    func testValue<Key: ContextKey>(for key: Key.Type, in environment: TestEnvironment) -> Key.Value {
        let raw = publishedBox(StorageID(key: key))
        if raw != 0 { return unboxValue(raw, as: Key.Value.self) }
        return computeTestValue(key, in: environment)
    }

    @usableFromInline
    func computeTestValue<Key: ContextKey>(_ key: Key.Type, in environment: TestEnvironment) -> Key.Value {
        computeTestValue(key) { environment.reportUnimplementedRead(of: key) }
    }

    /// The test value of `key`, computed on first use; `report` runs at each read of an unimplemented one.
    func computeTestValue<Key: ContextKey>(_ key: Key.Type, reportingUnimplemented report: () -> Void) -> Key.Value {
        let computed = value(of: key) {
            let mark = UnimplementedMark()
            let box = UnimplementedMark.$current.withValue(mark) {
                ObservationRecorder.withoutRecording { ValueBox(Key.testValue) }
            }
            return (box, mark.isSet)
        }
        if computed.isUnimplemented { report() }
        return unboxValue(address(of: computed.box), as: Key.Value.self)
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
