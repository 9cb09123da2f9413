// `FrozenTable`: the immutable open-addressing table a context's entries live in.

// MARK: - FrozenTable

/// An immutable map from ``StorageID`` to a boxed value, read without touching a reference count.
///
/// A table with one entry is just that entry (no allocation: the common request override); a larger
/// one is an open-addressing hash table in raw memory, at most half full, probed linearly after one
/// multiplication. Boxes are owned by strong references kept beside the raw words that readers use, so
/// that a lookup is plain loads. Writing returns a new table: contexts write only while being configured
/// or updated.
@usableFromInline
struct FrozenTable: Sendable {
    /// The only entry of a one-entry table (owning its box), else `nil`.
    @usableFromInline
    let single: (any ContextBox)?
    /// The identity of `single`, and its box's address, for lookups.
    @usableFromInline
    let singleID: UInt
    @usableFromInline
    let singleBox: UInt
    /// The slots of a table of two entries or more.
    @usableFromInline
    let storage: TableStorage?
    /// The number of entries (above bit 4), whether the table belongs to values being assigned through a
    /// key path (bit 3, see ``ContextValues/assign(_:at:)``), whether one entry is a test environment (bit
    /// 2, see `TestEnvironment`), whether one is local (bit 1) and whether one is a provider's (bit 0): kept
    /// as a plain word so that asking needs no access to the references above.
    @usableFromInline
    let summary: UInt

    /// A table with no entries: made in place, so that it costs no global access and no reference count.
    @inlinable
    static var empty: FrozenTable { FrozenTable() }

    @inlinable
    init() {
        self.single = nil
        self.singleID = 0
        self.singleBox = 0
        self.storage = nil
        self.summary = 0
    }

    /// A table holding only `box`, a value's, under `id`; for the setters, which make one per override.
    @inlinable
    init<Value>(_ id: StorageID, value box: ValueBox<Value>) {
        self.single = box
        self.singleID = id.raw
        self.singleBox = ReferenceWord.unretained(box)
        self.storage = nil
        // A setter never stores the test environment, whose key is internal: bit 2 stays clear.
        self.summary = 1 << 4 | (id.raw & 2)
    }

    private init(single: any ContextBox, singleID: UInt) {
        self.single = single
        self.singleID = singleID
        self.singleBox = address(of: single)
        self.storage = nil
        self.summary =
            1 << 4 | (singleID == TestEnvironment.storageID.raw ? 4 : 0) | (singleID & 2) | (singleBox & 1)
    }

    private init(storage: TableStorage) {
        self.single = nil
        self.singleID = 0
        self.singleBox = 0
        self.storage = storage
        self.summary =
            UInt(storage.count) << 4 | (storage.hasTestEnvironment ? 4 : 0) | (storage.hasLocalEntries ? 2 : 0)
            | (storage.hasProviders ? 1 : 0)
    }

    private init(_ table: FrozenTable, summary: UInt) {
        self.single = table.single
        self.singleID = table.singleID
        self.singleBox = table.singleBox
        self.storage = table.storage
        self.summary = summary
    }

    /// This table, with the same entries, marked as the own values of values being assigned through a key
    /// path if `assigning` (a read of them that finds no entry, or a provider, then asks for the value
    /// being assigned, see ``ContextValues/assign(_:at:)``), else unmarked. Any table made from it (by a
    /// write) is unmarked.
    @usableFromInline
    func marked(asAssigning assigning: Bool) -> FrozenTable {
        FrozenTable(self, summary: assigning ? summary | 8 : summary & ~8)
    }

    /// Whether the table is marked as the own values of values being assigned through a key path.
    @inlinable
    var isAssigning: Bool { summary & 8 != 0 }

    /// A table holding `entries`.
    init(_ entries: [UInt: any ContextBox]) {
        switch entries.count {
        case 0: self = .empty
        case 1: self.init(single: entries.first!.value, singleID: entries.first!.key)
        default: self.init(storage: TableStorage(entries))
        }
    }

    /// The number of entries.
    @inlinable
    var count: Int { Int(bitPattern: summary >> 4) }

    /// Whether any entry is a provider (whose box address carries the tag bit).
    @inlinable
    var hasProviders: Bool { summary & 1 != 0 }

    /// Whether the table holds a test environment: the values of a test context (see `TestEnvironment`),
    /// whose unset keys read their test values. Asked only when a read finds no entry.
    @inlinable
    var hasTestEnvironment: Bool { summary & 4 != 0 }

    /// Whether the table holds entries that children do not inherit (container values, preferences).
    @inlinable
    var hasLocalEntries: Bool { summary & 2 != 0 }

    /// The entries children inherit: this table without its container values and preferences.
    var inheritable: FrozenTable {
        hasLocalEntries ? FrozenTable(dictionary.filter { !StorageID(raw: $0.key).isLocal }) : self
    }

    /// The entries of the kind `isIncluded` selects, replaced by those of `replacement` that it selects.
    func replacingEntries(where isIncluded: (StorageID) -> Bool, with replacement: FrozenTable) -> FrozenTable {
        var all = dictionary.filter { !isIncluded(StorageID(raw: $0.key)) }
        for entry in replacement.entries where isIncluded(entry.id) { all[entry.id.raw] = entry.box }
        return FrozenTable(all)
    }

    // MARK: - Reading

    /// The address of the box stored under `id`, or 0; valid while this table is.
    @inlinable
    func rawBox(_ id: StorageID) -> UInt {
        if singleID == id.raw { return singleBox }
        guard let storage else { return 0 }
        return storage.rawBox(id.raw)
    }

    /// The value stored under `id`, read as `Value`.
    ///
    /// - Precondition: `Value` is the type that `id` was derived from.
    @inlinable
    func value<Value: Sendable>(_ id: StorageID, as type: Value.Type) -> Value? {
        let raw = rawBox(id)
        if raw == 0 { return nil }
        return unboxValue(raw, as: type)
    }

    /// The box stored under `id`, retained; for diagnostics and writes, not the read path.
    func box(_ id: StorageID) -> (any ContextBox)? {
        if let single { return singleID == id.raw ? single : nil }
        return storage?.box(id.raw)
    }

    /// Every entry (in no particular order).
    var entries: [(id: StorageID, box: any ContextBox)] {
        if let single { return [(StorageID(raw: singleID), single)] }
        return storage?.boxes.map { (StorageID(raw: $0.key), $0.value) } ?? []
    }

    /// Runs `body` on every entry (in no particular order), without collecting them first.
    func forEachEntry(_ body: (StorageID, any ContextBox) -> Void) {
        if let single { return body(StorageID(raw: singleID), single) }
        guard let storage else { return }
        for (raw, box) in storage.boxes { body(StorageID(raw: raw), box) }
    }

    /// Every entry by identity: the dictionary a larger table keeps anyway (no copy is made until it is
    /// changed), a one-entry one for a single entry.
    var dictionary: [UInt: any ContextBox] {
        if let single { return [singleID: single] }
        return storage?.boxes ?? [:]
    }

    /// Whether both tables are the same storage (and so hold the same entries).
    @inlinable
    func isIdentical(to other: FrozenTable) -> Bool {
        identity == other.identity
    }

    /// What tells this table from others without holding what it holds: equal for identical tables (see
    /// ``isIdentical(to:)``).
    @inlinable
    var identity: Identity {
        Identity(singleBox: singleBox, singleID: singleID, storage: storage.map(ReferenceWord.unretained) ?? 0)
    }

    /// A table's ``identity``: its single entry's identity and box, or its storage's address.
    @usableFromInline
    struct Identity: Equatable {
        @usableFromInline
        let singleBox: UInt
        @usableFromInline
        let singleID: UInt
        @usableFromInline
        let storage: UInt

        @inlinable
        init(singleBox: UInt, singleID: UInt, storage: UInt) {
            self.singleBox = singleBox
            self.singleID = singleID
            self.storage = storage
        }
    }

    // MARK: - Building

    /// A new table with `box` stored under `id`, replacing any entry already there.
    @usableFromInline
    func setting(_ id: StorageID, to box: any ContextBox) -> FrozenTable {
        if count == 0 { return FrozenTable(single: box, singleID: id.raw) }
        var all = dictionary
        all[id.raw] = box
        return FrozenTable(all)
    }

    /// A new table without an entry under `id`.
    func removing(_ id: StorageID) -> FrozenTable {
        guard rawBox(id) != 0 else { return self }
        var all = dictionary
        all[id.raw] = nil
        return FrozenTable(all)
    }

    /// The identities of the entries that differ between `self` and `earlier`: set to another box, added
    /// or removed.
    /// An entry whose new box holds the same value as the old one (the same object, or an equal
    /// `Equatable` value) has not changed: observers are told about what they would see change only.
    func changedIDs(from earlier: FrozenTable) -> [UInt] {
        var changed: [UInt] = []
        forEachEntry { id, box in
            guard earlier.rawBox(id) != rawBox(id) else { return }
            if let old = earlier.box(id), box.holdsSameValue(as: old) { return }
            changed.append(id.raw)
        }
        earlier.forEachEntry { id, _ in if rawBox(id) == 0 { changed.append(id.raw) } }
        return changed
    }

    /// This table with the entries of `overrides` set over its own.
    func overlaid(with overrides: FrozenTable) -> FrozenTable {
        var table = self
        for entry in overrides.entries { table = table.setting(entry.id, to: entry.box) }
        return table
    }

    /// A new table holding the entries of `base` overlaid with those of `overrides`.
    static func merging(_ base: FrozenTable, overriddenBy overrides: FrozenTable) -> FrozenTable {
        if overrides.count == 0 { return base }
        if base.count == 0 { return overrides }
        var all = base.dictionary
        overrides.forEachEntry { id, box in all[id.raw] = box }
        return FrozenTable(all)
    }
}

// MARK: - TableStorage

/// The slots of a table of two entries or more: raw words for lookups, and the boxes they point to.
@usableFromInline
final class TableStorage: Sendable {
    /// Pairs of words: an identity (0 for an empty slot) and its box's address.
    @usableFromInline
    nonisolated(unsafe) let slots: UnsafeMutablePointer<UInt>
    @usableFromInline
    let mask: Int
    @usableFromInline
    let shift: UInt
    let count: Int
    /// Whether any box is a provider's.
    let hasProviders: Bool
    let hasLocalEntries: Bool
    /// Whether one entry is a test environment's.
    let hasTestEnvironment: Bool
    /// The owners of the boxes that `slots` points to.
    let boxes: [UInt: any ContextBox]

    init(_ entries: [UInt: any ContextBox]) {
        var bits: UInt = 1
        while (1 << bits) < entries.count * 2 { bits += 1 }
        let capacity = 1 << bits
        let slots = UnsafeMutablePointer<UInt>.allocate(capacity: capacity * 2)
        slots.initialize(repeating: 0, count: capacity * 2)
        let shift = UInt(UInt.bitWidth) - bits
        var hasProviders = false
        var hasTestEnvironment = false
        let testEnvironment = TestEnvironment.storageID.raw
        for (raw, box) in entries {
            hasProviders = hasProviders || box.addressTag != 0
            hasTestEnvironment = hasTestEnvironment || raw == testEnvironment
            var index = TableStorage.index(of: raw, shift: shift)
            while slots[index * 2] != 0 { index = (index + 1) & (capacity - 1) }
            slots[index * 2] = raw
            slots[index * 2 + 1] = address(of: box)
        }
        self.slots = slots
        self.mask = capacity - 1
        self.shift = shift
        self.count = entries.count
        self.hasProviders = hasProviders
        self.hasTestEnvironment = hasTestEnvironment
        self.hasLocalEntries = entries.keys.contains { StorageID(raw: $0).isLocal }
        self.boxes = entries
    }

    deinit {
        slots.deallocate()
    }

    @inlinable
    static func index(of raw: UInt, shift: UInt) -> Int {
        // Fibonacci hashing: multiply by 2^64/phi and keep the top bits.
        Int(truncatingIfNeeded: (raw &* 0x9E37_79B9_7F4A_7C15) &>> shift)
    }

    @inlinable
    func rawBox(_ raw: UInt) -> UInt {
        var index = TableStorage.index(of: raw, shift: shift)
        while true {
            let id = slots[index &* 2]
            if id == raw { return slots[index &* 2 &+ 1] }
            if id == 0 { return 0 }
            index = (index &+ 1) & mask
        }
    }

    func box(_ raw: UInt) -> (any ContextBox)? { boxes[raw] }
}
