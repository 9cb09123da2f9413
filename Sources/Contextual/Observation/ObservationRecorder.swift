// What a tracked closure reads: the recorder that collects observed properties and context keys (internal).
// Architecture: ARCHITECTURE.md, "Observation and delivery".

import Synchronization

// MARK: - ObservationRecorder

/// Collects what a closure reads (observed properties, context keys) while it runs, so that a
/// subscription can watch exactly that.
@usableFromInline
final class ObservationRecorder: Sendable {
    /// Whether any recorder is active in the process. Reads check this one relaxed atomic load before
    /// looking up the task-local recorder, so that reading with nobody tracking costs next to nothing.
    /// It is a balanced count of active recording scopes, not configuration: nothing to reset.
    @usableFromInline
    static let activeCount = Atomic<Int>(0)

    @usableFromInline
    @TaskLocal static var current: ObservationRecorder?

    private let accesses = Locked<[any TrackedAccess]>.make([])
    private let keys = Locked<[(id: StorageID, box: UInt, entry: Any.Type, valueType: Any.Type)]>.make([])

    /// Runs `body` recording what it reads.
    static func record<Result>(_ body: () throws -> Result) rethrows -> (Result, [any TrackedAccess]) {
        let recorder = ObservationRecorder()
        activeCount.wrappingAdd(1, ordering: .relaxed)
        defer { activeCount.wrappingSubtract(1, ordering: .relaxed) }
        let result = try $current.withValue(recorder) { try body() }
        return (result, recorder.accesses.withLock { $0 })
    }

    /// Runs `body` with nothing recording what it reads: a key's default (or test value), computed during
    /// a recorded read, is computed once and kept, so what its computation reads is no dependency of the
    /// read (a change there does not change the kept value), nor a key the read's getter reads.
    ///
    /// ```swift
    /// let box = ObservationRecorder.withoutRecording { ValueBox(Key.defaultValue) }
    /// ```
    static func withoutRecording<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard active != nil else { return try body() }
        return try $current.withValue(nil, operation: body)
    }

    /// The recorder of the running scope, if any; one relaxed load when nobody records.
    @inlinable
    static var active: ObservationRecorder? {
        if activeCount.load(ordering: .relaxed) == 0 { return nil }
        return current
    }

    func append(_ access: any TrackedAccess) {
        accesses.withLock { $0.append(access) }
    }

    // MARK: - Context keys

    @usableFromInline
    func appendKey(_ id: StorageID, _ box: UInt, entry: Any.Type, valueType: Any.Type) {
        keys.withLock { $0.append((id, box, entry, valueType)) }
    }

    var keyCount: Int { keys.withLock { $0.count } }

    func keys(from start: Int) -> [(id: StorageID, box: UInt, entry: Any.Type, valueType: Any.Type)] {
        keys.withLock { Array($0[start...]) }
    }

    /// Runs `body` and returns the context entries it read: identity, key or object type, value type.
    static func recordKeys(_ body: () -> Void) -> [(id: StorageID, entry: Any.Type, valueType: Any.Type)] {
        let recorder = ObservationRecorder()
        activeCount.wrappingAdd(1, ordering: .relaxed)
        defer { activeCount.wrappingSubtract(1, ordering: .relaxed) }
        $current.withValue(recorder) { body() }
        return recorder.keys(from: 0).map { ($0.id, $0.entry, $0.valueType) }
    }
}

// MARK: - TrackedAccess

/// One thing a closure read, which can be subscribed to.
protocol TrackedAccess: Sendable {
    /// Subscribes `subscriber` to changes of what was read; `changedSinceRead` is true when it already
    /// changed between the read and the subscription (the subscriber should then react at once).
    func subscribe(_ subscriber: any Subscriber) -> (token: ObservationToken, changedSinceRead: Bool)

    /// A number that grows with every change of what was read, for ordering deliveries.
    var version: UInt64 { get }

    /// What was read, by identity: equal identities mean nothing observable changed.
    var identity: [UInt] { get }

    /// Whether what was read is still what there is now.
    var isCurrent: Bool { get }

    /// The same access, read again now.
    func refreshed() -> any TrackedAccess

    /// ``version`` as it is now.
    var currentVersion: UInt64 { get }

    /// Whether this reads a context (whose version moves with unrelated changes in its tree, so that
    /// only the identities of what it sees tell a change).
    var isContext: Bool { get }

    /// Whether a new identity may hold the same value, which is then no change (a context value's box:
    /// an equal value written again, an override equal to what was inherited). False where the identity
    /// itself is what changes (a preference's subtree, whose members coming and going are changes).
    var identityMayHoldSameValue: Bool { get }
}
