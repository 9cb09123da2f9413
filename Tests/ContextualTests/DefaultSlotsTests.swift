import Testing

@testable import Contextual

// MARK: - Keys of as many types as a test needs

/// A key per type `Tag`: `Nested<Nested<…>>` gives as many distinct keys as a test asks for. Its default
/// is its type's address, different for each.
private enum IndexedKey<Tag>: ContextKey {
    static var defaultValue: String { String(UInt(bitPattern: ObjectIdentifier(Tag.self))) }
}

private enum Nested<Inner> {}

/// Calls `body` with `count` distinct key types, each with the default its type's name gives.
private func forEachKey(_ count: Int, _ body: (any ContextKey.Type) -> Void) {
    func visit<Tag>(_ tag: Tag.Type, left: Int) {
        guard left > 0 else { return }
        body(IndexedKey<Tag>.self)
        visit(Nested<Tag>.self, left: left - 1)
    }
    visit(Int.self, left: count)
}

/// Reads `key`'s default from `store`.
private func readDefault<Key: ContextKey>(_ key: Key.Type, from store: DefaultValueStore) -> String {
    String(describing: store.value(for: key))
}

/// Whether `store` reads `key`'s default as the key computes it.
private func readsItsDefault<Key: ContextKey>(_ key: Key.Type, from store: DefaultValueStore) -> Bool {
    String(describing: store.value(for: key)) == String(describing: Key.defaultValue)
}

@Suite("Published defaults' slots")
struct DefaultSlotsTests {
    @Test("A table finds what was inserted, grows with its entries, and copies without a removed one")
    func insertGrowCopy() {
        let table = DefaultSlots(capacity: 8)
        for raw in UInt(1)...4 { table.insert(raw << 4, box: raw) }
        #expect(!table.hasRoom)
        #expect((UInt(1)...4).map { table.box($0 << 4) } == [1, 2, 3, 4])
        #expect(table.box(5 << 4) == 0)
        let larger = table.copy(adding: 5 << 4, box: 5)
        #expect(larger.capacity == 16)
        #expect((UInt(1)...5).map { larger.box($0 << 4) } == [1, 2, 3, 4, 5])
        let smaller = larger.copy(removing: 2 << 4)
        #expect(smaller.box(2 << 4) == 0)
        #expect(smaller.count == 4)
        #expect(table.box(3 << 4) == 3, "a replaced table still answers for what it held")
    }

    @Test("A store keeps under eight slots per key computed, and reads each without its lock")
    func storeMemoryIsLinear() {
        let store = DefaultValueStore(holdsTestValues: false)
        var keys: [any ContextKey.Type] = []
        forEachKey(300) { keys.append($0) }
        for key in keys { _ = readDefault(key, from: store) }
        // Publishing a whole table per key kept 45,150 entries for these 300 keys.
        #expect(store.keptSlotCount <= 8 * 300 - 24)
        for key in keys { #expect(store.publishedBox(StorageID(raw: UInt(bitPattern: ObjectIdentifier(key)))) != 0) }
    }

    @Test("Threads computing new keys while others read published ones: every read is its key's default")
    func concurrentPublishing() async {
        let store = DefaultValueStore(holdsTestValues: false)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    // The same 400 key types in every worker (metatypes of a protocol are not Sendable).
                    var all: [any ContextKey.Type] = []
                    forEachKey(400) { all.append($0) }
                    var wrong = 0
                    // Each worker walks the keys from its own place, so computations and reads interleave.
                    for step in 0..<all.count {
                        let index = (step * 7 + worker * 100) % all.count
                        if !readsItsDefault(all[index], from: store) { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        #expect(store.keptSlotCount <= 8 * 400 - 24)
    }
}
