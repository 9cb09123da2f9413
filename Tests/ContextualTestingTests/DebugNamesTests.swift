// Finding a function's compilation unit by its mangled name, in the DWARF 5 name indexes of an image.

import Contextual
import Synchronization
import Testing

@testable import ContextualTesting

#if os(Linux)
@Suite("Finding a function's unit by its name")
struct DebugNamesTests {
    @Test("Names hash as DWARF 5 indexes hash them: DJB over the name with ASCII letters lowercased")
    func hashes() {
        // As llvm-dwarfdump shows it for this name in a test binary's index.
        let name = "$s10Contextual12AnyBuildCellC9builtBits15Synchronization6AtomicVySuGvr"
        #expect(DebugNames.hash(Array(name.utf8)) == 0x343E_BC5E)
        #expect(DebugNames.hash(Array("ABC".utf8)) == DebugNames.hash(Array("abc".utf8)))
        #expect(DebugNames.hash([]) == 5381)
    }

    @Test("An index gives the unit of each entry of a name; another name gives none")
    func oneIndex() {
        let index = Self.index(
            names: [("$s4main3runyyF", [2]), ("$s4main4stopyyF", [1, 0])],
            units: [0x40, 0x80, 0xC0]
        )
        #expect(Self.units(in: index, defining: "$s4main3runyyF") == [0xC0])
        #expect(Self.units(in: index, defining: "$s4main4stopyyF") == [0x80, 0x40])
        #expect(Self.units(in: index, defining: "$s4main4walkyyF") == [])
        // The same hash (letters are hashed lowercased), another name.
        #expect(Self.units(in: index, defining: "$s4main3RUNyyF") == [])
    }

    @Test("Indexes one after another are all looked in, in order")
    func severalIndexes() {
        let first = Self.index(names: [("$s4main3runyyF", [1])], units: [0x10, 0x20])
        let second = Self.index(names: [("$s4main3runyyF", [0])], units: [0x30])
        #expect(
            Self.units(in: (first.names + second.names, first.strings), defining: "$s4main3runyyF") == [0x20, 0x30]
        )
    }

    @Test("An index it cannot read makes the look-up nil: another version, a length past the section, an unknown form")
    func unreadable() {
        let name = "$s4main3runyyF"
        var version4 = Self.index(names: [(name, [0])], units: [0x10])
        version4.names[4] = 4
        var tooLong = Self.index(names: [(name, [0])], units: [0x10])
        tooLong.names[0] &+= 1
        let unknownForm = Self.index(names: [(name, [0])], units: [0x10], form: 0x7F)
        let unitPastTheList = Self.index(names: [(name, [1])], units: [0x10])
        for index in [version4, tooLong, unknownForm, unitPastTheList] {
            #expect(Self.units(in: index, defining: name) == nil)
        }
        #expect(Self.units(in: ([], []), defining: name) == [])
    }

    @Test("A frame's line is found through the names without indexing the image's units, as the index finds it")
    func agreesWithTheIndex() throws {
        let frames = Self.capturedHere()
        var compared = 0
        for frame in frames.prefix(2) {
            let image = try #require(frame.image)
            let name = try #require(frame.symbol?.rawName)
            let byName = try #require(ImageLineTables(imageAt: image.path))
            let found = byName.location(at: UInt64(frame.address - image.base), function: name)
            #expect(found != nil)
            #expect(!byName.hasTriedIndexing)
            let byIndex = try #require(ImageLineTables(imageAt: image.path))
            #expect(byIndex.location(at: UInt64(frame.address - image.base)) == found)
            #expect(byIndex.hasTriedIndexing)
            compared += 1
        }
        #expect(compared == 2)
        // A name no index has falls back to the index, at the same location.
        let frame = try #require(frames.first)
        let image = try #require(frame.image)
        let tables = try #require(ImageLineTables(imageAt: image.path))
        let fallback = tables.location(at: UInt64(frame.address - image.base), function: "$s4none7missingyyF")
        #expect(fallback == tables.location(at: UInt64(frame.address - image.base)))
        #expect(tables.hasTriedIndexing)
    }

    // MARK: - Helpers

    /// The stack captured from this function, its call not a tail call (see ``NativeStackTests``).
    @inline(never)
    private static func capturedHere() -> [StackFrame] {
        let frames = NativeStack.capture { _ in true }
        captures.add(1, ordering: .relaxed)
        return frames
    }

    /// How many captures ``capturedHere()`` made.
    private static let captures = Atomic<Int>(0)

    /// A DWARF 5 name index (32-bit) of `names`, each with the units of its entries (indices into `units`,
    /// the units' offsets in `.debug_info`), in one bucket, and the `.debug_str` that holds the names;
    /// each entry is a subprogram whose unit is given in `form` (DW_FORM_data1 unless told).
    static func index(
        names: [(name: String, units: [Int])],
        units: [Int],
        form: UInt8 = 0x0B
    ) -> (names: [UInt8], strings: [UInt8]) {
        func le(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        var strings: [UInt8] = [0]
        var stringOffsets: [Int] = []
        for name in names {
            stringOffsets.append(strings.count)
            strings += Array(name.name.utf8) + [0]
        }
        // One abbreviation: code 1, DW_TAG_subprogram, DW_IDX_compile_unit in `form`.
        let abbreviations: [UInt8] = [1, 0x2E, 1, form, 0, 0, 0]
        var pool: [UInt8] = []
        var entryOffsets: [Int] = []
        for name in names {
            entryOffsets.append(pool.count)
            for unit in name.units { pool += [1, UInt8(unit)] }
            pool += [0]
        }
        var body = le(5, 2) + le(0, 2)  // version, padding
        body += le(units.count, 4) + le(0, 4) + le(0, 4) + le(1, 4) + le(names.count, 4)
        body += le(abbreviations.count, 4) + le(0, 4)  // no augmentation string
        body += units.flatMap { le($0, 4) }
        body += le(1, 4)  // the one bucket's first name: every hash is in bucket 0 of 1
        body += names.flatMap { le(Int(DebugNames.hash(Array($0.name.utf8))), 4) }
        body += stringOffsets.flatMap { le($0, 4) }
        body += entryOffsets.flatMap { le($0, 4) }
        body += abbreviations + pool
        return (le(body.count, 4) + body, strings)
    }

    /// The units that the index `bytes` gives for `name`.
    static func units(in bytes: (names: [UInt8], strings: [UInt8]), defining name: String) -> [Int]? {
        bytes.names.withUnsafeBytes { names in
            bytes.strings.withUnsafeBytes { strings in
                DebugNames(names: names, strings: strings).units(defining: name)
            }
        }
    }
}
#endif
