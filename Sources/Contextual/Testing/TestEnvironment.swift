// `TestEnvironment`: what a test context's tree shares, stored in its root's values under an internal key.

import Synchronization

// MARK: - TestEnvironment

/// The test values of one test context and its descendants, and where their unimplemented reads go.
///
/// A test context stores it under ``TestEnvironmentKey``, an entry its children inherit like any value.
/// Tables remember that they hold it in a bit of their summary, so that a read finding no entry asks one
/// bit whether to read the process-wide default or this environment's test value: production reads pay
/// nothing else.
@usableFromInline
final class TestEnvironment: Sendable {
    /// The identity of the entry every test context holds.
    @usableFromInline
    static var storageID: StorageID { StorageID(key: TestEnvironmentKey.self) }

    /// The name of the test context, for reports.
    let name: String?
    @usableFromInline
    let values = DefaultValueStore(holdsTestValues: true)
    let onUnimplementedRead: @Sendable (UnimplementedRead) -> Void
    /// True while the test context's configuring closure runs: a key path assignment there reads the old
    /// value first (`values[keyPath: path] = value` gets, then sets), which is no read by the test.
    let isConfiguring = Atomic(false)

    /// Whether the context reads each unset key's default instead, also in a test runner (a context
    /// made by ``Context/live(name:_:)``).
    @usableFromInline
    let readsLiveValues: Bool

    init(
        name: String?,
        readsLiveValues: Bool = false,
        onUnimplementedRead: @escaping @Sendable (UnimplementedRead) -> Void
    ) {
        self.name = name
        self.readsLiveValues = readsLiveValues
        self.onUnimplementedRead = onUnimplementedRead
    }

    /// Reports a read of `key`, whose test value is unimplemented; runs the handler on the reading thread.
    func reportUnimplementedRead<Key: ContextKey>(of key: Key.Type) {
        if isConfiguring.load(ordering: .relaxed) { return }
        onUnimplementedRead(UnimplementedRead(key: TypeMetadata.qualifiedName(of: key), contextName: name))
    }
}

// MARK: - TestEnvironmentKey

/// The internal key a test context stores its ``TestEnvironment`` under; `nil` everywhere else.
@usableFromInline
enum TestEnvironmentKey: ContextKey {
    @usableFromInline
    static var defaultValue: TestEnvironment? { nil }
}

// MARK: - Reading test values

extension ContextValues {
    /// The test value of `key`, for a read of an unset key in a test context. Specialized where it is
    /// used, but never inlined, so that production reads keep only the test of one bit.
    @inlinable @inline(never)
    func testValue<Key: ContextKey>(for key: Key.Type) -> Key.Value {
        // The read of the old value that an assignment through a key path makes (see `assign(_:at:)`).
        if let assigned = assignedValue(for: key) { return assigned }
        let id = TestEnvironment.storageID
        var raw = own.rawBox(id)
        if raw == 0 { raw = inherited.rawBox(id) }
        guard raw != 0, let environment = unboxValue(raw, as: TestEnvironment?.self) else {
            return DefaultValueStore.shared.value(for: key)
        }
        if environment.readsLiveValues { return DefaultValueStore.live.value(for: key) }
        return environment.values.testValue(for: key, in: environment)
    }

    /// The test environment of these values (a test context's, or a live context's), if any.
    var testEnvironment: TestEnvironment? {
        guard let box = box(TestEnvironment.storageID) else { return nil }
        return (box as? ValueBox<TestEnvironment?>)?.value ?? nil
    }

    /// Stores `environment`, making these a test context's values.
    mutating func setTestEnvironment(_ environment: TestEnvironment) {
        own.set(
            TestEnvironment.storageID,
            to: ValueBox(Optional(environment), entry: TestEnvironmentKey.self)
        )
    }
}
