// `DefaultSlots`: the boxes of computed defaults (or test values) by key, written once, read without a lock.
// Architecture: ARCHITECTURE.md, "Default values and test values".

import Synchronization

// MARK: - DefaultSlots

/// The boxes a ``DefaultValueStore`` published, by storage ID: an open-addressing table (linear probing,
/// Fibonacci hashing) whose slots are written once, under the store's lock, and read without a lock.
///
/// A store inserts into its table until it would be more than half full, then makes one of twice the
/// capacity with the same entries, publishes that one, and keeps the old one for readers that may still
/// be probing it (they find what it held, or miss and take the store's slow path, which finds the value
/// in its cell). The first table has 16 slots, for up to 8 keys; past that, the tables of *k* keys have
/// at most 8*k* − 24 slots together (two words each), where publishing a whole new table per key kept
/// *k*(*k* + 1)/2 entries.
///
/// Invariants:
/// - A slot's ID goes from 0 to an ID once and never changes again; its box is stored before its ID, and
///   never changes. Ordering: the ID is stored releasing and loaded acquiring, so a reader that finds the
///   ID sees the box (loaded relaxed after it).
/// - The capacity is a power of two and at most half the slots are used, so every probe ends at an empty
///   slot.
/// - The boxes are not retained here: the store keeps them (in their cells) for as long as it keeps a
///   table that names them.
///
/// `@unchecked Sendable`: its slots and its count live in memory it owns, read and written only through
/// atomics (the writes under the owning store's lock only).
final class DefaultSlots: @unchecked Sendable {
    /// Two words per slot: the storage ID (0 when empty), then the box's address.
    private let words: UnsafeMutablePointer<Atomic<UInt>>
    /// The number of slots: a power of two.
    let capacity: Int
    /// `64 - log2(capacity)`: Fibonacci hashing keeps the top bits.
    private let shift: Int
    /// The slots used. Relaxed: written under the store's lock, which orders it.
    private let used = Atomic<Int>(0)

    /// The slots used.
    var count: Int { used.load(ordering: .relaxed) }

    /// A table of `capacity` empty slots (a power of two, at least 8).
    init(capacity: Int) {
        precondition(capacity >= 8 && capacity & (capacity - 1) == 0, "capacity \(capacity): not a power of 2 ≥ 8")
        self.capacity = capacity
        self.shift = UInt.bitWidth - capacity.trailingZeroBitCount
        words = .allocate(capacity: 2 * capacity)
        for index in 0..<2 * capacity { (words + index).initialize(to: Atomic(0)) }
    }

    deinit {
        words.deinitialize(count: 2 * capacity)
        words.deallocate()
    }

    /// The slot where a probe for `raw` starts.
    private func start(of raw: UInt) -> Int {
        Int(truncatingIfNeeded: (raw &* 0x9E37_79B9_7F4A_7C15) &>> UInt(shift))
    }

    // MARK: - Reading

    /// The address of the box stored under `raw`, or 0. Takes no lock.
    ///
    /// - Complexity: O(1) expected: the table is at most half full.
    func box(_ raw: UInt) -> UInt {
        var index = start(of: raw)
        while true {
            // Acquiring: the box was stored before the ID (releasing).
            let id = words[2 * index].load(ordering: .acquiring)
            if id == raw { return words[2 * index + 1].load(ordering: .relaxed) }
            if id == 0 { return 0 }
            index = (index + 1) & (capacity - 1)
        }
    }

    /// Every entry, for a larger table (under the store's lock).
    var entries: [(id: UInt, box: UInt)] {
        (0..<capacity).compactMap { index in
            let id = words[2 * index].load(ordering: .relaxed)
            return id == 0 ? nil : (id, words[2 * index + 1].load(ordering: .relaxed))
        }
    }

    // MARK: - Writing (under the store's lock)

    /// Whether one more entry keeps the table at most half full.
    var hasRoom: Bool { 2 * (count + 1) <= capacity }

    /// Stores `box` under `raw`, which is not in the table; the caller holds the store's lock and checked
    /// ``hasRoom``.
    func insert(_ raw: UInt, box: UInt) {
        precondition(hasRoom, "a default's table is full")
        assert(self.box(raw) == 0, "a default published twice")
        var index = start(of: raw)
        while words[2 * index].load(ordering: .relaxed) != 0 { index = (index + 1) & (capacity - 1) }
        words[2 * index + 1].store(box, ordering: .relaxed)
        // Releasing: a reader that loads this ID (acquiring) sees the box stored above.
        words[2 * index].store(raw, ordering: .releasing)
        used.add(1, ordering: .relaxed)
    }

    /// A table with these entries and `raw` → `box` (when `raw` is not 0), of a capacity that keeps it at
    /// most half full, without the entry of `removing` (for a test's reset).
    func copy(adding raw: UInt = 0, box: UInt = 0, removing removed: UInt = 0) -> DefaultSlots {
        let kept = entries.filter { $0.id != removed }
        var capacity = self.capacity
        while 2 * (kept.count + 1) > capacity { capacity *= 2 }
        let table = DefaultSlots(capacity: capacity)
        for entry in kept { table.insert(entry.id, box: entry.box) }
        if raw != 0 { table.insert(raw, box: box) }
        return table
    }
}
