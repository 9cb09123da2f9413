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

    @Test("One index's only unit may go unnamed; names in several buckets; a 64-bit entry offset past the section")
    func corners() {
        let name = "$s4main3runyyF"
        // No DW_IDX_compile_unit: the index's one unit.
        let unnamed = Self.index(names: [(name, [0])], units: [0x50], form: nil)
        #expect(Self.units(in: unnamed, defining: name) == [0x50])
        let unnamedOfTwo = Self.index(names: [(name, [0])], units: [0x50, 0x60], form: nil)
        #expect(Self.units(in: unnamedOfTwo, defining: name) == [])
        // Names spread over buckets, each found in its own.
        let names = (0..<12).map { "$s4main1f\($0)yyF" }
        let spread = Self.index(
            names: names.enumerated().map { ($1, [$0 % 3]) },
            units: [0x10, 0x20, 0x30],
            buckets: 5
        )
        for (index, name) in names.enumerated() {
            #expect(Self.units(in: spread, defining: name) == [[0x10, 0x20, 0x30][index % 3]])
        }
        // A DWARF64 index whose entry offset is past any section: refused, not read.
        var far = Self.index(names: [(name, [0])], units: [0x10], dwarf64: true)
        let entryOffset = far.names.count - 7 - 3 - 8  // abbreviations (7), pool (3), the entry offset (8)
        far.names.replaceSubrange(
            entryOffset..<entryOffset + 8,
            with: [0xF0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        )
        #expect(Self.units(in: far, defining: name) == nil)
        var negative = far
        negative.names.replaceSubrange(entryOffset..<entryOffset + 8, with: [UInt8](repeating: 0xFF, count: 8))
        #expect(Self.units(in: negative, defining: name) == nil)
        let fine = Self.index(names: [(name, [0])], units: [0x10], dwarf64: true)
        #expect(Self.units(in: fine, defining: name) == [0x10])
    }

    #if DEBUG
    @Test("A frame's line is found through the names without indexing the image's units, as the index finds it")
    func agreesWithTheIndex() throws {
        let frames = Self.capturedHere()
        let binary = try #require(frames.first?.image)
        guard MappedImage.shared(forImageAt: binary.path)?.section(named: ".debug_names") != nil else {
            return  // a toolchain that writes no name indexes: every look-up uses the index
        }
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
    #endif

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

    /// A DWARF 5 name index of `names`, each with the units of its entries (indices into `units`, the
    /// units' offsets in `.debug_info`), in `buckets` buckets, 32-bit unless `dwarf64`, and the
    /// `.debug_str` that holds the names; each entry is a subprogram whose unit is given in `form`
    /// (DW_FORM_data1 unless told; not given when `nil`).
    static func index(
        names: [(name: String, units: [Int])],
        units: [Int],
        form: UInt8? = 0x0B,
        buckets: Int = 1,
        dwarf64: Bool = false
    ) -> (names: [UInt8], strings: [UInt8]) {
        func le(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        let offsetSize = dwarf64 ? 8 : 4
        // The names in the order of their buckets (a bucket's hashes are consecutive).
        let hashed = names.map { (name: $0.name, units: $0.units, hash: Int(DebugNames.hash(Array($0.name.utf8)))) }
        let sorted = hashed.sorted { $0.hash % buckets < $1.hash % buckets }
        var strings: [UInt8] = [0]
        var stringOffsets: [Int] = []
        for name in sorted {
            stringOffsets.append(strings.count)
            strings += Array(name.name.utf8) + [0]
        }
        // One abbreviation: code 1, DW_TAG_subprogram, DW_IDX_compile_unit in `form` (none without one).
        let abbreviations: [UInt8] = form.map { [1, 0x2E, 1, $0, 0, 0, 0] } ?? [1, 0x2E, 0, 0, 0]
        var pool: [UInt8] = []
        var entryOffsets: [Int] = []
        for name in sorted {
            entryOffsets.append(pool.count)
            for unit in name.units { pool += form == nil ? [1] : [1, UInt8(unit)] }
            pool += [0]
        }
        var bucketStarts = [Int](repeating: 0, count: buckets)
        for (index, name) in sorted.enumerated().reversed() { bucketStarts[name.hash % buckets] = index + 1 }
        var body = le(5, 2) + le(0, 2)  // version, padding
        body += le(units.count, 4) + le(0, 4) + le(0, 4) + le(buckets, 4) + le(sorted.count, 4)
        body += le(abbreviations.count, 4) + le(0, 4)  // no augmentation string
        body += units.flatMap { le($0, offsetSize) }
        body += bucketStarts.flatMap { le($0, 4) }
        body += sorted.flatMap { le($0.hash, 4) }
        body += stringOffsets.flatMap { le($0, offsetSize) }
        body += entryOffsets.flatMap { le($0, offsetSize) }
        body += abbreviations + pool
        let length = dwarf64 ? le(0xFFFF_FFFF, 4) + le(body.count, 8) : le(body.count, 4)
        return (length + body, strings)
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
