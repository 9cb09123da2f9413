// `ChangeLog`: which entries the last updates of a tree changed, by generation.
// Architecture: ARCHITECTURE.md, "The change log and the incremental refresh".

import Synchronization

// MARK: - ChangeLog

/// Which entries the last updates of a tree replaced, added or removed, by generation: a context whose
/// state is a few generations old brings it up to date by replacing those entries of what it inherits,
/// instead of merging everything its ancestors hold again (see `Context.refresh()`).
///
/// A ring of ``capacity`` records, one per generation, made with the tree's first update. An update
/// writes its generation's record after it published its values; a reader that finds a record missing
/// (not written yet, overwritten by a later generation, or for an update that changed more than
/// ``ChangeRecord/capacity`` entries) rebuilds its state the general way instead. Nothing here waits.
///
/// ```swift
/// tree.recordChange(ChangedIDs(...), generation: 7)  // kept in the tree's log, made on first use
/// tree.changedIDs(after: 5, through: 7)  // the entries changed at generations 6 and 7, if known
/// ```
final class ChangeLog: Sendable {
    /// The number of generations the log remembers.
    static let capacity = 16

    private let records: [ChangeRecord]

    init() {
        records = (0..<ChangeLog.capacity).map { _ in ChangeRecord() }
    }

    /// Records that the update of `generation` changed `ids`. Called once per generation, after the
    /// update published its values.
    func record(_ ids: ChangedIDs, generation: UInt64) {
        records[Int(truncatingIfNeeded: generation) & (ChangeLog.capacity - 1)].write(ids, generation: generation)
    }

    /// The entries changed by the updates of the generations after `start` through `end`, or nil when
    /// the log cannot tell (too many generations, too many entries, or a record not written yet).
    ///
    /// - Complexity: O(*g*) for the *g* generations asked about, at most ``capacity``.
    func changedIDs(after start: UInt64, through end: UInt64) -> ChangedIDs? {
        guard end > start, end - start <= UInt64(ChangeLog.capacity) else { return nil }
        var all = ChangedIDs()
        var generation = start + 1
        while generation <= end {
            let record = records[Int(truncatingIfNeeded: generation) & (ChangeLog.capacity - 1)]
            guard let ids = record.read(generation: generation), all.formUnion(ids) else { return nil }
            generation += 1
        }
        return all
    }
}

// MARK: - ChangedIDs

/// At most ``capacity`` entry identities, inline: what one update (or a few) changed.
struct ChangedIDs: Sendable {
    /// The most identities one value holds; an update that changes more is not recorded.
    static let capacity = 4

    private(set) var count = 0
    private var ids: (UInt, UInt, UInt, UInt) = (0, 0, 0, 0)

    init() {}

    /// `count` identities, the first of `ids`, as a ``ChangeRecord`` holds them.
    fileprivate init(count: Int, ids: (UInt, UInt, UInt, UInt)) {
        self.count = min(max(count, 0), ChangedIDs.capacity)
        self.ids = ids
    }

    /// The identity at `index`.
    subscript(index: Int) -> UInt {
        switch index {
        case 0: ids.0
        case 1: ids.1
        case 2: ids.2
        default: ids.3
        }
    }

    /// Adds `id` unless it is there; false when there is no room for it.
    mutating func insert(_ id: UInt) -> Bool {
        var index = 0
        while index < count {
            if self[index] == id { return true }
            index += 1
        }
        switch count {
        case 0: ids.0 = id
        case 1: ids.1 = id
        case 2: ids.2 = id
        case 3: ids.3 = id
        default: return false
        }
        count += 1
        return true
    }

    /// Whether every identity is of an entry children do not inherit (a container value, a preference):
    /// no state below the context that changed them holds what they replaced. True when empty.
    var areAllLocal: Bool {
        var index = 0
        while index < count {
            if !StorageID(raw: self[index]).isLocal { return false }
            index += 1
        }
        return true
    }

    /// Adds the identities of `other`; false when there is no room for them all.
    mutating func formUnion(_ other: ChangedIDs) -> Bool {
        var index = 0
        while index < other.count {
            if !insert(other[index]) { return false }
            index += 1
        }
        return true
    }
}

// MARK: - ChangeRecord

/// One generation's record: a sequence lock of atomic words, so that a reader copies it without a lock
/// and knows whether what it copied is whole.
final class ChangeRecord: Sendable {
    /// The generation recorded here; 0 while nothing is, `writing` while a writer fills it in.
    private let tag = Atomic<UInt64>(0)
    private let count = Atomic<Int>(0)
    private let id0 = Atomic<UInt>(0)
    private let id1 = Atomic<UInt>(0)
    private let id2 = Atomic<UInt>(0)
    private let id3 = Atomic<UInt>(0)

    private static let writing = UInt64.max

    init() {}

    /// Writes `ids` as `generation`'s record, unless another writer holds the record: the reader of
    /// `generation` then finds it missing, which is safe.
    func write(_ ids: ChangedIDs, generation: UInt64) {
        let current = tag.load(ordering: .relaxed)
        // Two updates 16 generations apart may race for the record: one writes, the other gives up.
        guard current != ChangeRecord.writing,
            tag.compareExchange(expected: current, desired: ChangeRecord.writing, ordering: .acquiring).exchanged
        else { return }
        // Orders the stores below after the mark: a reader that sees one of them sees the mark on its
        // second look at the tag.
        atomicMemoryFence(ordering: .releasing)
        count.store(ids.count, ordering: .relaxed)
        id0.store(ids[0], ordering: .relaxed)
        id1.store(ids[1], ordering: .relaxed)
        id2.store(ids[2], ordering: .relaxed)
        id3.store(ids[3], ordering: .relaxed)
        tag.store(generation, ordering: .releasing)
    }

    /// The identities recorded for `generation`, or nil when this record does not hold it whole.
    func read(generation: UInt64) -> ChangedIDs? {
        guard tag.load(ordering: .acquiring) == generation else { return nil }
        let ids = ChangedIDs(
            count: count.load(ordering: .relaxed),
            ids: (
                id0.load(ordering: .relaxed), id1.load(ordering: .relaxed), id2.load(ordering: .relaxed),
                id3.load(ordering: .relaxed)
            )
        )
        atomicMemoryFence(ordering: .acquiring)
        guard tag.load(ordering: .relaxed) == generation else { return nil }
        return ids
    }
}
