import Testing

@testable import Contextual

/// A table being built (configured, or written in an update) changes in place while no other table holds
/// its hash table, so that registering n entries costs O(n); a table another one holds is never changed.
@Suite("Tables: built in place while no other table holds them")
struct FrozenTableInPlaceTests {
    /// Distinct identities, as keys and objects have (even, like a key's, so no local-entry bit).
    private func id(_ index: Int) -> StorageID { StorageID(raw: UInt(index + 1) &* 0x10) }

    private func box(_ value: Int) -> any ContextBox { ValueBox(value, entry: VerbosityKey.self) }

    @Test("Random writes and removals in place read as a dictionary of the same writes does")
    func randomWritesMatchADictionary() {
        var generator = SplitMix(seed: 0x5EED)
        var table = FrozenTable.empty
        var model: [UInt: Int] = [:]
        for step in 0..<20_000 {
            let index = Int(generator.next() % 600)
            if generator.next() % 3 == 0 {
                table.remove(id(index))
                model[id(index).raw] = nil
            } else {
                table.set(id(index), to: box(step))
                model[id(index).raw] = step
            }
            if step % 997 == 0 || step > 19_900 {
                #expect(table.count == model.count)
                for probe in 0..<600 {
                    #expect(table.value(id(probe), as: Int.self) == model[id(probe).raw])
                }
            }
        }
        #expect(Dictionary(uniqueKeysWithValues: table.entries.map { ($0.id.raw, $0.box) }).count == model.count)
    }

    @Test("Writing to a copy leaves the table it was copied from as it was")
    func copiesAreNotChanged() {
        var table = FrozenTable.empty
        for index in 0..<10 { table.set(id(index), to: box(index)) }
        let kept = table
        table.set(id(3), to: box(33))
        table.set(id(20), to: box(20))
        table.remove(id(4))
        #expect(kept.value(id(3), as: Int.self) == 3)
        #expect(kept.value(id(4), as: Int.self) == 4)
        #expect(kept.value(id(20), as: Int.self) == nil)
        #expect(kept.count == 10)
        #expect(table.value(id(3), as: Int.self) == 33)
        #expect(table.value(id(4), as: Int.self) == nil)
        #expect(table.count == 10)
    }

    @Test("A table no other table holds is written in place; one that is held is copied once")
    func writesInPlace() throws {
        var table = FrozenTable.empty
        for index in 0..<3 { table.set(id(index), to: box(index)) }
        let storage = try #require(table.storage)
        table.set(id(3), to: box(3))
        #expect(table.storage === storage)
        let held = table
        table.set(id(4), to: box(4))
        table.set(id(5), to: box(5))
        #expect(table.storage !== storage)
        #expect(held.storage === storage)
    }

    @Test("A hidden box is released with the table that shows its replacement, unless initial values keep it")
    func releasingHidden() throws {
        var table = FrozenTable.empty
        weak var hidden: AnyObject?
        do {
            let first = ValueBox(Database(url: "a"), entry: VerbosityKey.self)
            hidden = first
            table.set(id(0), to: first)
        }
        table.set(id(1), to: box(1))
        let replaced = table.setting(id(0), to: box(2))
        #expect(replaced.storage === table.storage)
        var kept = replaced
        kept.releaseHidden(unlessKeptBy: table)
        #expect(kept.storage === table.storage)
        _ = consume kept
        var released = replaced
        released.releaseHidden(unlessKeptBy: .empty)
        table = .empty
        _ = consume replaced
        #expect(hidden == nil)
        #expect(released.value(id(0), as: Int.self) == 2)
        #expect(released.value(id(1), as: Int.self) == 1)
        #expect(released.count == 2)
    }
}

/// SplitMix64: a small deterministic generator for these tests.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
