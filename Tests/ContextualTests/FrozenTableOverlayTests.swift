import Testing

@testable import Contextual

/// A larger table replaces or removes one entry with an overlay, without a new hash table; everything that
/// lists or compares entries must see the overlay as if the table had been rebuilt.
@Suite("Tables: one entry replaced or removed in place of a rebuild")
struct FrozenTableOverlayTests {
    private let first = StorageID(key: RequestIDKey.self)
    private let second = StorageID(key: VerbosityKey.self)
    private let third = StorageID(key: TagsKey.self)

    private func box(_ value: String) -> any ContextBox { ValueBox(value, entry: RequestIDKey.self) }

    /// A hash table of two entries.
    private func twoEntries() -> FrozenTable {
        FrozenTable.empty.setting(first, to: box("one")).setting(second, to: ValueBox(2, entry: VerbosityKey.self))
    }

    @Test("Replacing an entry of a larger table keeps its hash table and reads the new box")
    func replaceKeepsStorage() throws {
        let table = twoEntries()
        let replaced = table.setting(first, to: box("uno"))
        #expect(replaced.storage === table.storage)
        #expect(replaced.count == 2)
        #expect(replaced.value(first, as: String.self) == "uno")
        #expect(replaced.value(second, as: Int.self) == 2)
        #expect(table.value(first, as: String.self) == "one")
        // The same entry again replaces the overlay; another entry makes a new table.
        let again = replaced.setting(first, to: box("eins"))
        #expect(again.storage === table.storage)
        #expect(again.value(first, as: String.self) == "eins")
        let other = again.setting(third, to: ValueBox(["t"], entry: TagsKey.self))
        #expect(other.storage !== table.storage)
        #expect(other.count == 3)
        #expect(other.value(first, as: String.self) == "eins")
        #expect(other.value(third, as: [String].self) == ["t"])
        #expect(Set(other.entries.map(\.id.raw)) == [first.raw, second.raw, third.raw])
    }

    @Test("Adding an entry to a larger table counts it and lists it")
    func addThroughOverlay() {
        let added = twoEntries().setting(third, to: ValueBox(["t"], entry: TagsKey.self))
        #expect(added.count == 3)
        #expect(added.dictionary.count == 3)
        var seen: [UInt] = []
        added.forEachEntry { id, _ in seen.append(id.raw) }
        #expect(Set(seen) == [first.raw, second.raw, third.raw])
        #expect(seen.count == 3)
    }

    @Test("Removing an entry of a larger table hides it, and removing an added one restores the table")
    func removeThroughOverlay() {
        let table = twoEntries()
        let removed = table.removing(first)
        #expect(removed.storage === table.storage)
        #expect(removed.count == 1)
        #expect(removed.rawBox(first) == 0)
        #expect(removed.box(first) == nil)
        #expect(removed.entries.map(\.id.raw) == [second.raw])
        #expect(removed.dictionary.keys.sorted() == [second.raw])
        // Setting it again brings it back.
        #expect(removed.setting(first, to: box("back")).value(first, as: String.self) == "back")
        let added = table.setting(third, to: ValueBox(["t"], entry: TagsKey.self))
        let restored = added.removing(third)
        #expect(restored.isIdentical(to: table))
        #expect(restored.count == 2)
    }

    @Test("What changed between two tables that share a hash table is the overlays' entries only")
    func changedEntries() throws {
        let table = twoEntries()
        let replaced = table.setting(first, to: box("uno"))
        #expect(try #require(replaced.changedEntryIDs(from: table)).count == 1)
        #expect(try #require(replaced.changedEntryIDs(from: table))[0] == first.raw)
        let removed = table.removing(second)
        let both = try #require(removed.changedEntryIDs(from: replaced))
        #expect(both.count == 2)
        #expect(Set([both[0], both[1]]) == [first.raw, second.raw])
        // Tables that do not share one are compared entry by entry.
        let rebuilt = FrozenTable.empty.setting(first, to: box("x"))
        let compared = try #require(rebuilt.changedEntryIDs(from: table))
        #expect(compared.count == 2)
        #expect(try #require(replaced.changedEntryIDs(from: replaced)).count == 0)
    }
}

@Suite("The change log: which entries the last updates changed, by generation")
struct ChangeLogTests {
    private func ids(_ raws: UInt...) -> ChangedIDs {
        var ids = ChangedIDs()
        for raw in raws {
            let inserted = ids.insert(raw)
            #expect(inserted)
        }
        return ids
    }

    @Test("It gives the union of the records asked for, and nil for what it cannot tell")
    func unionAndGaps() throws {
        let log = ChangeLog()
        log.record(ids(10), generation: 1)
        log.record(ids(20, 10), generation: 2)
        log.record(ChangedIDs(), generation: 3)
        let union = try #require(log.changedIDs(after: 0, through: 3))
        #expect(union.count == 2)
        #expect(try #require(log.changedIDs(after: 2, through: 3)).count == 0)
        // A generation not recorded (yet).
        #expect(log.changedIDs(after: 0, through: 4) == nil)
        // More entries than one value holds.
        log.record(ids(30, 40, 50), generation: 4)
        #expect(log.changedIDs(after: 0, through: 4) == nil)
        #expect(try #require(log.changedIDs(after: 3, through: 4)).count == 3)
        // More generations than the log remembers, and an empty range.
        #expect(log.changedIDs(after: 0, through: UInt64(ChangeLog.capacity) + 1) == nil)
        #expect(log.changedIDs(after: 4, through: 4) == nil)
    }

    @Test("A record overwritten by a later generation is no longer given for the earlier one")
    func overwritten() throws {
        let log = ChangeLog()
        log.record(ids(1), generation: 5)
        log.record(ids(2), generation: 5 + UInt64(ChangeLog.capacity))
        #expect(log.changedIDs(after: 4, through: 5) == nil)
        let later = try #require(
            log.changedIDs(after: 4 + UInt64(ChangeLog.capacity), through: 5 + UInt64(ChangeLog.capacity))
        )
        #expect(later.count == 1)
        #expect(later[0] == 2)
    }

}

@Suite("A published state's values, read in place")
struct ContextStateLayoutTests {
    @Test("A state's values are read in place at the address the state gives")
    func stateValuesInPlace() {
        let own = FrozenTable.empty.setting(
            StorageID(key: VerbosityKey.self),
            to: ValueBox(7, entry: VerbosityKey.self)
        )
        let state = ContextState(values: ContextValues(own: own, inherited: .empty, origin: nil), generation: 3)
        #expect(state.valuesAddress.pointee.own.isIdentical(to: own))
        #expect(state.valuesAddress.pointee[VerbosityKey.self] == 7)
        #expect(state.generation == 3)
    }
}
