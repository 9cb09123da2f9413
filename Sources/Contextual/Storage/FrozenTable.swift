// `FrozenTable`: the immutable open-addressing table a context's entries live in.
// Architecture: ARCHITECTURE.md, "Tables: FrozenTable and TableStorage".

// MARK: - FrozenTable

/// An immutable map from ``StorageID`` to a boxed value, read without touching a reference count.
///
/// A table with one entry is just that entry (no allocation: the common request override); a larger
/// one is an open-addressing hash table in raw memory, at most half full, probed linearly after one
/// multiplication. Boxes are owned by strong references kept beside the raw words that readers use, so
/// that a lookup is plain loads. Writing returns a new table: contexts write only while being configured
/// or updated.
///
/// A larger table may also carry one *overlay* entry in place of its single entry: a replacement (or a
/// removal, with no box) of one identity, checked before the hash table. Setting or removing one entry
/// of a larger table, or setting the same one again, then allocates nothing: what an ``Context/update(_:)``
/// of one value and the refresh of a context's inherited values after it mostly do.
@usableFromInline
struct FrozenTable: Sendable {
    /// The only entry of a one-entry table (owning its box); with `storage`, the overlay entry (nil for
    /// an overlay that removes `singleID`); else `nil`.
    @usableFromInline
    let single: (any ContextBox)?
    /// The identity of `single` (0 for none), and its box's address (0 for none or a removal), for
    /// lookups.
    @usableFromInline
    let singleID: UInt
    @usableFromInline
    let singleBox: UInt
    /// The slots of a table of two entries or more.
    @usableFromInline
    var storage: TableStorage?
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

    /// `storage` with `box` (nil: no entry) in place of whatever it holds under `id`.
    private init(storage: TableStorage, overlaying id: UInt, with box: (any ContextBox)?, boxAddress: UInt) {
        self.single = box
        self.singleID = id
        self.singleBox = boxAddress
        self.storage = storage
        let replaces = storage.rawBox(id) != 0
        let count = storage.count + (boxAddress == 0 ? 0 : 1) - (replaces ? 1 : 0)
        // Conservative flags: an overlay that replaces the only provider (or local entry) of `storage`
        // leaves them set, which only sends reads down their general path.
        self.summary =
            UInt(count) << 4 | (storage.hasTestEnvironment || id == TestEnvironment.storageID.raw ? 4 : 0)
            | (storage.hasLocalEntries || (boxAddress != 0 && id & 2 != 0) ? 2 : 0)
            | (storage.hasProviders || singleBox & 1 != 0 ? 1 : 0)
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

    /// Whether the table is a hash table with an overlay entry (see the type's documentation).
    var hasOverlay: Bool { storage != nil && singleID != 0 }

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
        if singleID == id.raw { return single }
        return storage?.box(id.raw)
    }

    /// Every entry (in no particular order).
    var entries: [(id: StorageID, box: any ContextBox)] {
        var all: [(id: StorageID, box: any ContextBox)] = []
        forEachEntry { all.append(($0, $1)) }
        return all
    }

    /// Runs `body` on every entry (in no particular order), without collecting them first.
    func forEachEntry(_ body: (StorageID, any ContextBox) -> Void) {
        guard let storage else {
            if let single { body(StorageID(raw: singleID), single) }
            return
        }
        for (raw, box) in storage.boxes where raw != singleID { body(StorageID(raw: raw), box) }
        if let single { body(StorageID(raw: singleID), single) }
    }

    /// Every entry by identity: the dictionary a larger table keeps anyway (no copy is made until it is
    /// changed, unless the table has an overlay), a one-entry one for a single entry.
    var dictionary: [UInt: any ContextBox] {
        guard let storage else { return single.map { [singleID: $0] } ?? [:] }
        if singleID == 0 { return storage.boxes }
        var all = storage.boxes
        all[singleID] = single
        return all
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
    ///
    /// - Complexity: O(1) and no allocation for an empty table, and for a hash table with no overlay or
    ///   one on `id` (the overlay takes the entry); else O(*n*) for *n* entries.
    @usableFromInline
    func setting(_ id: StorageID, to box: any ContextBox) -> FrozenTable {
        if storage == nil {
            if count == 0 { return FrozenTable(single: box, singleID: id.raw) }
        } else if singleID == 0 || singleID == id.raw {
            return FrozenTable(
                storage: storage.unsafelyUnwrapped,
                overlaying: id.raw,
                with: box,
                boxAddress: address(of: box)
            )
        }
        var all = dictionary
        all[id.raw] = box
        return FrozenTable(all)
    }

    /// A new table without an entry under `id`.
    ///
    /// - Complexity: as ``setting(_:to:)``.
    func removing(_ id: StorageID) -> FrozenTable {
        guard rawBox(id) != 0 else { return self }
        if let storage, singleID == 0 || singleID == id.raw {
            // An overlay that only added `id` goes; else one that removes it hides the hash table's entry.
            if storage.rawBox(id.raw) == 0 { return FrozenTable(storage: storage) }
            return FrozenTable(storage: storage, overlaying: id.raw, with: nil, boxAddress: 0)
        }
        var all = dictionary
        all[id.raw] = nil
        return FrozenTable(all)
    }

    // MARK: - Building in place

    /// Stores `box` under `id`, replacing any entry already there, as ``setting(_:to:)`` does: in place
    /// when this table's hash table is its own (no other table holds it), so that a context configured
    /// with *n* entries, one by one, is built in O(*n*) in all.
    ///
    /// - Complexity: Amortized O(1): O(1) and no allocation as ``setting(_:to:)``, or in place; else one
    ///   copy, in O(*n*) for *n* entries, which the next writes then change in place.
    @inlinable
    mutating func set(_ id: StorageID, to box: any ContextBox) {
        if isKnownUniquelyReferenced(&storage) { setInPlace(id, to: box) } else { self = setting(id, to: box) }
    }

    /// ``set(_:to:)`` on a table whose hash table no other table holds.
    @usableFromInline
    mutating func setInPlace(_ id: StorageID, to box: any ContextBox) {
        let storage = storage.unsafelyUnwrapped
        foldOverlay(into: storage)
        storage.insert(id.raw, box)
        self = FrozenTable(storage: storage)
    }

    /// Removes the entry under `id`, as ``removing(_:)`` does: in place when this table's hash table is
    /// its own.
    ///
    /// - Complexity: As ``set(_:to:)``.
    mutating func remove(_ id: StorageID) {
        guard rawBox(id) != 0 else { return }
        guard isKnownUniquelyReferenced(&storage), let storage else {
            self = removing(id)
            return
        }
        foldOverlay(into: storage)
        storage.remove(id.raw)
        self = FrozenTable(storage: storage)
    }

    /// Writes the overlay entry, if any, into `storage`, this table's own hash table.
    private func foldOverlay(into storage: TableStorage) {
        guard singleID != 0 else { return }
        if let single { storage.insert(singleID, single) } else { storage.remove(singleID) }
    }

    /// Makes this table hold no box that it hides: an overlay entry that replaces or removes an entry of
    /// the hash table below it becomes an overlay over a hash table without that entry, so that the box
    /// replaced is released with the last table that shows it, not kept by the hash table the new one
    /// shares. For what ``Context/update(_:)`` publishes, and a context's refreshed inherited values: the
    /// first update of an entry copies the hash table once; later updates of that entry replace the
    /// overlay alone. A box hidden in the hash table of `kept` (a context's initial values, which live
    /// as long as the context anyway) is left where it is.
    ///
    /// - Complexity: O(1) when nothing is hidden; else O(*n*) for *n* entries, and one allocation.
    @inline(__always)
    mutating func releaseHidden(unlessKeptBy kept: borrowing FrozenTable) {
        // Addresses only, compared without a reference count: the common case returns here.
        if singleID == 0 || identity.storage == 0 || identity.storage == kept.identity.storage { return }
        if storage.unsafelyUnwrapped.rawBox(singleID) == 0 { return }
        self = withoutHidden()
    }

    /// This table with its overlay over a hash table without the entry the overlay hides.
    private func withoutHidden() -> FrozenTable {
        var below = storage.unsafelyUnwrapped.boxes
        below[singleID] = nil
        let rest = TableStorage(below)
        guard let single else { return FrozenTable(storage: rest) }
        return FrozenTable(storage: rest, overlaying: singleID, with: single, boxAddress: singleBox)
    }

    /// The identities of the entries that differ between `self` and `earlier`: set to another box, added
    /// or removed.
    /// An entry whose new box holds the same value as the old one (the same object, or an equal
    /// `Equatable` value) has not changed: observers are told about what they would see change only.
    ///
    /// - Complexity: O(1) when both tables share their hash table (an update of one entry), else O(*n*).
    func changedIDs(from earlier: FrozenTable) -> [UInt] {
        var changed: [UInt] = []
        if let storage, let earlierStorage = earlier.storage, storage === earlierStorage {
            // Only the overlays differ: at most their two identities.
            for raw in [singleID, earlier.singleID] where raw != 0 && !changed.contains(raw) {
                let id = StorageID(raw: raw)
                if rawBox(id) == earlier.rawBox(id) { continue }
                if let now = box(id), let old = earlier.box(id), now.holdsSameValue(as: old) { continue }
                changed.append(raw)
            }
            return changed
        }
        forEachEntry { id, box in
            guard earlier.rawBox(id) != rawBox(id) else { return }
            if let old = earlier.box(id), box.holdsSameValue(as: old) { return }
            changed.append(id.raw)
        }
        earlier.forEachEntry { id, _ in if rawBox(id) == 0 { changed.append(id.raw) } }
        return changed
    }

    /// The identities whose box differs between `self` and `earlier` (set to another box, added or
    /// removed), for the tree's ``ChangeLog``; nil when there are more than ``ChangedIDs/capacity``.
    ///
    /// - Complexity: O(1) when both tables share their hash table (an update of one entry), else O(*n*).
    func changedEntryIDs(from earlier: FrozenTable) -> ChangedIDs? {
        var ids = ChangedIDs()
        if let storage, let earlierStorage = earlier.storage, storage === earlierStorage {
            // Only the overlays differ.
            if singleID != 0 && singleBox != earlier.rawBox(StorageID(raw: singleID)) { _ = ids.insert(singleID) }
            if earlier.singleID != 0 && earlier.singleID != singleID
                && earlier.singleBox != rawBox(StorageID(raw: earlier.singleID))
            {
                _ = ids.insert(earlier.singleID)
            }
            return ids
        }
        var fits = true
        forEachEntry { id, _ in
            if earlier.rawBox(id) != rawBox(id) { fits = ids.insert(id.raw) && fits }
        }
        earlier.forEachEntry { id, _ in
            if rawBox(id) == 0 { fits = ids.insert(id.raw) && fits }
        }
        return fits ? ids : nil
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
    // Invariant: a storage changes (`insert(_:_:)`, `remove(_:)`) only while one table alone holds it, as
    // the value being built (see `FrozenTable.set(_:to:)`): before any other table, context or thread can
    // reach it. From then on it is read only, by any thread, without a lock; hence `nonisolated(unsafe)`.

    /// Pairs of words: an identity (0 for an empty slot) and its box's address.
    @usableFromInline
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var slots: UnsafeMutablePointer<UInt>
    @usableFromInline
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var mask: Int
    @usableFromInline
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var shift: UInt
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var count: Int
    /// Whether any box is a provider's (a box replaced in place may leave it set: only reads' path).
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var hasProviders: Bool
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var hasLocalEntries: Bool
    /// Whether one entry is a test environment's.
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var hasTestEnvironment: Bool
    /// The owners of the boxes that `slots` points to.
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var boxes: [UInt: any ContextBox]

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

    // MARK: - Changing in place

    /// Stores `box` under `raw`, growing the slots when they would be more than half full. Only while one
    /// table alone holds this storage (see the invariant above).
    ///
    /// - Complexity: Amortized O(1).
    func insert(_ raw: UInt, _ box: any ContextBox) {
        if boxes.updateValue(box, forKey: raw) == nil {
            count += 1
            if count * 2 > mask + 1 { rehash(capacity: (mask + 1) * 2) }
        }
        var index = TableStorage.index(of: raw, shift: shift)
        while slots[index * 2] != 0 && slots[index * 2] != raw { index = (index + 1) & mask }
        slots[index * 2] = raw
        slots[index * 2 + 1] = address(of: box)
        hasProviders = hasProviders || box.addressTag != 0
        hasLocalEntries = hasLocalEntries || StorageID(raw: raw).isLocal
        hasTestEnvironment = hasTestEnvironment || raw == TestEnvironment.storageID.raw
    }

    /// Removes the entry under `raw`, if any, shifting back the entries probed past it (no tombstones).
    /// Only while one table alone holds this storage.
    ///
    /// - Complexity: O(1) on average.
    func remove(_ raw: UInt) {
        guard boxes.removeValue(forKey: raw) != nil else { return }
        count -= 1
        var hole = TableStorage.index(of: raw, shift: shift)
        while slots[hole * 2] != raw { hole = (hole + 1) & mask }
        var next = hole
        while true {
            next = (next + 1) & mask
            let id = slots[next * 2]
            if id == 0 { break }
            // An entry moves into the hole unless its home lies cyclically in (hole, next].
            let home = TableStorage.index(of: id, shift: shift)
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if stays { continue }
            slots[hole * 2] = id
            slots[hole * 2 + 1] = slots[next * 2 + 1]
            hole = next
        }
        slots[hole * 2] = 0
        slots[hole * 2 + 1] = 0
    }

    /// Moves every entry into new slots of `capacity` (a power of two).
    private func rehash(capacity: Int) {
        let old = slots
        let oldCapacity = mask + 1
        var bits: UInt = 1
        while (1 << bits) < capacity { bits += 1 }
        slots = UnsafeMutablePointer<UInt>.allocate(capacity: capacity * 2)
        slots.initialize(repeating: 0, count: capacity * 2)
        mask = capacity - 1
        shift = UInt(UInt.bitWidth) - bits
        for index in 0..<oldCapacity where old[index * 2] != 0 {
            var target = TableStorage.index(of: old[index * 2], shift: shift)
            while slots[target * 2] != 0 { target = (target + 1) & mask }
            slots[target * 2] = old[index * 2]
            slots[target * 2 + 1] = old[index * 2 + 1]
        }
        old.deallocate()
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
