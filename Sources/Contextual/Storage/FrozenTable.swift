// MARK: - FrozenTable

/// An immutable open-addressing hash table from ``StorageID`` to a boxed value.
///
/// Once built it never changes, so any number of threads read it without a lock. A lookup hashes the
/// identity with one multiplication and probes linearly; the table is at most half full, so a probe
/// sequence is short. Writing returns a new table: contexts write only while they are being configured.
@usableFromInline
struct FrozenTable: Sendable {
    @usableFromInline
    struct Slot: Sendable {
        /// `0` marks an empty slot (no type metadata lives at address zero).
        @usableFromInline
        let id: UInt
        @usableFromInline
        let box: (any ContextBox)?

        @usableFromInline
        static let empty = Slot(id: 0, box: nil)

        @usableFromInline
        init(id: UInt, box: (any ContextBox)?) {
            self.id = id
            self.box = box
        }
    }

    @usableFromInline
    let slots: ContiguousArray<Slot>
    /// How far to shift the product of the hash multiplication (64 minus the table's bit width).
    @usableFromInline
    let shift: UInt
    /// The number of occupied slots.
    @usableFromInline
    let count: Int

    /// A table with no entries; looking anything up in it costs one comparison.
    @usableFromInline
    static let empty = FrozenTable(slots: [], shift: 0, count: 0)

    @usableFromInline
    init(slots: ContiguousArray<Slot>, shift: UInt, count: Int) {
        self.slots = slots
        self.shift = shift
        self.count = count
    }

    // MARK: - Reading

    /// The box stored under `id`, or `nil`.
    @inlinable
    func lookup(_ id: StorageID) -> (any ContextBox)? {
        if count == 0 { return nil }
        return slots.withUnsafeBufferPointer { buffer in
            let mask = buffer.count &- 1
            var index = FrozenTable.index(of: id.raw, shift: shift)
            while true {
                let slot = buffer[index]
                if slot.id == id.raw { return slot.box }
                if slot.id == 0 { return nil }
                index = (index &+ 1) & mask
            }
        }
    }

    @inlinable
    static func index(of raw: UInt, shift: UInt) -> Int {
        // Fibonacci hashing: multiply by 2^64/phi and keep the top bits.
        Int(truncatingIfNeeded: (raw &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    /// Whether both tables share one storage (and so hold the same entries).
    func isIdentical(to other: FrozenTable) -> Bool {
        if count == 0 && other.count == 0 { return true }
        let mine = slots.withUnsafeBufferPointer { $0.baseAddress }
        let theirs = other.slots.withUnsafeBufferPointer { $0.baseAddress }
        return mine == theirs
    }

    /// Every entry, in slot order (not insertion order).
    var entries: [(id: StorageID, box: any ContextBox)] {
        slots.compactMap { slot in slot.box.map { (StorageID(raw: slot.id), $0) } }
    }

    // MARK: - Building

    /// A new table with `box` stored under `id`, replacing any entry already there.
    func setting(_ id: StorageID, to box: any ContextBox) -> FrozenTable {
        var all = Dictionary(uniqueKeysWithValues: entries.map { ($0.id.raw, $0.box) })
        all[id.raw] = box
        return FrozenTable(all)
    }

    /// A new table without an entry under `id`.
    func removing(_ id: StorageID) -> FrozenTable {
        guard lookup(id) != nil else { return self }
        var all = Dictionary(uniqueKeysWithValues: entries.map { ($0.id.raw, $0.box) })
        all[id.raw] = nil
        return FrozenTable(all)
    }

    /// The identities of the entries that differ between `self` and `earlier`: set to another box, added
    /// or removed.
    func changedIDs(from earlier: FrozenTable) -> [UInt] {
        var changed: [UInt] = []
        for entry in entries where earlier.lookup(entry.id) !== entry.box { changed.append(entry.id.raw) }
        for entry in earlier.entries where lookup(entry.id) == nil { changed.append(entry.id.raw) }
        return changed
    }

    /// A new table holding the entries of `base` overlaid with those of `overrides`.
    static func merging(_ base: FrozenTable, overriddenBy overrides: FrozenTable) -> FrozenTable {
        if overrides.count == 0 { return base }
        if base.count == 0 { return overrides }
        var all = Dictionary(uniqueKeysWithValues: base.entries.map { ($0.id.raw, $0.box) })
        for entry in overrides.entries { all[entry.id.raw] = entry.box }
        return FrozenTable(all)
    }

    init(_ entries: [UInt: any ContextBox]) {
        guard !entries.isEmpty else {
            self = .empty
            return
        }
        // At most half full: capacity is the next power of two at or above twice the count.
        var bits: UInt = 1
        while (1 << bits) < entries.count * 2 { bits += 1 }
        let capacity = 1 << bits
        var slots = ContiguousArray(repeating: Slot.empty, count: capacity)
        let shift = UInt(UInt.bitWidth) - bits
        for (raw, box) in entries {
            var index = FrozenTable.index(of: raw, shift: shift)
            while slots[index].id != 0 { index = (index + 1) & (capacity - 1) }
            slots[index] = Slot(id: raw, box: box)
        }
        self.init(slots: slots, shift: shift, count: entries.count)
    }
}
