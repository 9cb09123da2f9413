// `@Observed`: a property of an `ObservableModel` that notifies its observers after each change.

import Synchronization

// MARK: - Observed

/// A property of an ``ObservableModel`` that reports reads (for tracking) and writes (to subscribers).
///
/// ```swift
/// @Observed var books: [Book] = []
/// ```
///
/// Writing a value equal to the current one (for `Equatable` values) or the same instance (for
/// classes) notifies nobody. Reads and writes are safe from any thread.
@propertyWrapper
public struct Observed<Value: Sendable>: Sendable {
    @usableFromInline
    let storage: ObservedStorage<Value>

    /// An observed property of an `Equatable` type: writing an equal value notifies nobody.
    ///
    /// ```swift
    /// @Observed var title = "Untitled"
    /// ```
    @inlinable
    public init(wrappedValue: Value) where Value: Equatable {
        storage = ObservedStorage(wrappedValue, isSame: ==)
    }

    /// An observed property: writing the same instance (for a class) notifies nobody; any other write
    /// notifies.
    ///
    /// ```swift
    /// @Observed var pool: ConnectionPool
    /// ```
    public init(wrappedValue: Value) {
        storage = ObservedStorage(wrappedValue) { old, new in
            guard Value.self is AnyObject.Type else { return false }
            return (old as AnyObject) === (new as AnyObject)
        }
    }

    /// Not available: `@Observed` works only in a class that adopts ``ObservableModel``.
    ///
    /// ```swift
    /// struct Settings { @Observed var title = "" }  // error: only in an ObservableModel class
    /// ```
    @available(*, unavailable, message: "@Observed is available only in a class that adopts ObservableModel")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        // swift-format-ignore: UseSingleLinePropertyGetter
        set { fatalError("unavailable") }
    }

    /// Reads and writes the property of `model`, reporting to its registry.
    ///
    /// ```swift
    /// library.books.append(book)  // goes through here
    /// ```
    @inlinable
    public static subscript<Model: ObservableModel>(
        _enclosingInstance model: Model,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Model, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Model, Observed<Value>>
    ) -> Value {
        // Always inlined (in an optimized build) into the model's property, so that the key paths are
        // constants there and become direct accesses (not inlined, each read would project the key path at
        // run time).
        @inline(__always) get {
            #if DEBUG
            // A debug build projects the key path at run time: once, and nothing more.
            let storage = model[keyPath: storageKeyPath].storage
            if let recorder = ObservationRecorder.active {
                return storage.read(in: model.observationRegistry, recording: recorder)
            }
            return storage.read()
            #else
            if let recorder = ObservationRecorder.active {
                return model[keyPath: storageKeyPath].storage.read(in: model.observationRegistry, recording: recorder)
            }
            // The storage without a reference (two atomic operations fewer, as many as the read's lock):
            // the model holds it in this property, which only the model's own code replaces, and only in
            // its initializer; the read runs no code of the model's.
            return ReferenceWord.withHeldInstance(
                in: model,
                loading: { $0[keyPath: storageKeyPath].storage },
                reading: { $0.read() }
            )
            #endif
        }
        set { model[keyPath: storageKeyPath].storage.write(newValue, in: model.observationRegistry) }
    }
}

// MARK: - ObservedStorage

/// The value of one observed property, its version, and how to compare two values.
@usableFromInline
final class ObservedStorage<Value: Sendable>: Sendable {
    @usableFromInline
    let value: Locked<Value>
    /// Moves (under `value`'s lock) with every effective write; read without the lock.
    @usableFromInline
    let versionCounter = Atomic<UInt64>(0)
    @usableFromInline
    let isSame: @Sendable (Value, Value) -> Bool

    @usableFromInline
    init(_ value: Value, isSame: @escaping @Sendable (Value, Value) -> Bool) {
        self.value = Locked.make(value)
        self.isSame = isSame
    }

    @usableFromInline
    var id: UInt { UInt(bitPattern: ObjectIdentifier(self)) }

    var version: UInt64 { versionCounter.load(ordering: .acquiring) }

    /// The value, for a read with nobody tracking.
    @inlinable
    func read() -> Value {
        value.withLock { $0 }
    }

    /// The value, recorded for `recorder` with the version it had.
    @inlinable
    func read(in registry: ObservationRegistry, recording recorder: ObservationRecorder) -> Value {
        let (value, version) = value.withLock { ($0, versionCounter.load(ordering: .relaxed)) }
        record(version, in: registry, recorder)
        return value
    }

    @usableFromInline
    func record(_ version: UInt64, in registry: ObservationRegistry, _ recorder: ObservationRecorder) {
        recorder.append(PropertyAccess(registry: registry, storage: self, version: version))
    }

    /// Specialized where the property is written (no generic metadata lookups for `Value`).
    @inlinable
    func write(_ newValue: Value, in registry: ObservationRegistry) {
        while true {
            let (old, version) = value.withLock { ($0, versionCounter.load(ordering: .relaxed)) }
            // Compared outside the lock: `==` is user code.
            if isSame(old, newValue) { return }
            let replaced = value.withLock { value -> Value? in
                guard versionCounter.load(ordering: .relaxed) == version else { return nil }
                defer {
                    value = newValue
                    versionCounter.store(version &+ 1, ordering: .releasing)
                }
                return value
            }
            // The old value is released here, outside the lock: its deinit is user code.
            guard replaced != nil else { continue }
            registry.didChange(source: id)
            return
        }
    }
}

// MARK: - PropertyAccess

/// A read of one observed property, as recorded for tracking.
struct PropertyAccess<Value: Sendable>: TrackedAccess {
    weak var registry: ObservationRegistry?
    let storage: ObservedStorage<Value>
    let version: UInt64

    func subscribe(_ subscriber: any Subscriber) -> (token: ObservationToken, changedSinceRead: Bool) {
        guard let registry else { return (ObservationToken {}, false) }
        let token = registry.add(subscriber, to: [storage.id])
        return (token, !isCurrent)
    }

    var isCurrent: Bool { storage.version == version }

    var identity: [UInt] { [storage.id, UInt(truncatingIfNeeded: version)] }
    var currentVersion: UInt64 { storage.version }
    var isContext: Bool { false }
    var identityMayHoldSameValue: Bool { false }

    func refreshed() -> any TrackedAccess {
        PropertyAccess(registry: registry, storage: storage, version: storage.version)
    }
}
