// Indexing the compilation units of `.debug_info` by the addresses of their code, so that finding a line
// runs one unit's line program, not the image's: well-formed units are placed, units without code are left
// out, and an entry the reader cannot read leaves no index rather than a wrong one.

import Foundation
import Runtime
import Testing

@testable import ContextualTesting

@Suite("Indexing compilation units by address")
struct CompileUnitIndexTests {
    @Test("DWARF 4 units are placed by DW_AT_low_pc and DW_AT_high_pc, or by a list in .debug_ranges")
    func placesVersion4Units() throws {
        let index = try #require(
            CompileUnitIndex(
                info: Info.version4(code: 1, [le(0x100, 4), le(0x1000, 8), le(0x100, 4)])
                    + Info.version4(code: 2, [le(0x200, 4), le(0, 4), Array("b.c\0".utf8)])
                    + Info.version4(code: 3, [le(0x300, 4), Array("shim\0".utf8)]),
                abbreviations: Info.abbreviations,
                // Two ranges, out of order, then a base address selection and a range from it.
                ranges: le(0x3000, 8) + le(0x3010, 8) + le(0x2000, 8) + le(0x2100, 8)
                    + le(.max, 8) + le(0x8000, 8) + le(0x10, 8) + le(0x20, 8) + le(0, 8) + le(0, 8),
                rangeLists: []
            )
        )
        #expect(index.lineProgramOffsets(at: 0x1080) == [0x100])
        #expect(index.lineProgramOffsets(at: 0x2050) == [0x200])
        #expect(index.lineProgramOffsets(at: 0x8015) == [0x200])
        #expect(index.lineProgramOffsets(at: 0x1100) == [])
        #expect(index.lineProgramOffsets(at: 0x8020) == [])
        // The unit without code (a C module's skeleton unit, say) is left out.
        #expect(index.units.count == 2)
    }

    @Test("A DWARF 5 unit is placed by its list in .debug_rnglists")
    func placesVersion5Units() throws {
        // DW_RLE_base_address, DW_RLE_offset_pair, DW_RLE_start_length, DW_RLE_end_of_list.
        let list: [UInt8] = [5] + le(0x4000, 8) + [4, 0x10, 0x20] + [7] + le(0x5000, 8) + [0x40, 0]
        let index = try #require(
            CompileUnitIndex(
                info: Info.version5(code: 2, [le(0x400, 4), le(0, 4), Array("c.swift\0".utf8)]),
                abbreviations: Info.abbreviations,
                ranges: [],
                rangeLists: list
            )
        )
        #expect(index.lineProgramOffsets(at: 0x4010) == [0x400])
        #expect(index.lineProgramOffsets(at: 0x503F) == [0x400])
        #expect(index.lineProgramOffsets(at: 0x400F) == [])
        #expect(index.lineProgramOffsets(at: 0x5040) == [])
    }

    @Test(
        "An entry it cannot read leaves no index: an unknown form, an address in .debug_addr, a list or unit that runs out"
    )
    func refusesWhatItCannotRead() {
        let unit = Info.version4(code: 1, [le(0x100, 4), le(0x1000, 8), le(0x100, 4)])
        // The abbreviation's form for DW_AT_low_pc changed to an unknown one, then to DW_FORM_addrx.
        for form: UInt8 in [0x7F, 0x1B] {
            var abbreviations = Info.abbreviations
            abbreviations[6] = form
            #expect(CompileUnitIndex(info: unit, abbreviations: abbreviations, ranges: [], rangeLists: []) == nil)
        }
        // An abbreviation code the table does not have.
        let unknown = Info.version4(code: 9, [])
        #expect(CompileUnitIndex(info: unknown, abbreviations: Info.abbreviations, ranges: [], rangeLists: []) == nil)
        // A range list with no end, and one at an offset past its section.
        let listed = Info.version4(code: 2, [le(0x200, 4), le(0, 4), Array("b.c\0".utf8)])
        let endless = le(0x3000, 8) + le(0x3010, 8)
        for ranges in [endless, []] {
            #expect(
                CompileUnitIndex(info: listed, abbreviations: Info.abbreviations, ranges: ranges, rangeLists: []) == nil
            )
        }
        // Every prefix of a unit: none traps, and a unit cut short is not placed.
        for count in 0..<unit.count {
            let index = CompileUnitIndex(
                info: Array(unit.prefix(count)),
                abbreviations: Info.abbreviations,
                ranges: [],
                rangeLists: []
            )
            #expect(index == nil || index?.units.isEmpty == true)
        }
    }

    #if DEBUG && os(Linux)
    @Test("This test binary's units are indexed, and a look-up runs the line program of one unit, not all")
    func oneUnitPerLookUp() throws {
        let backtrace = try Backtrace.capture()
        let symbolicated = try #require(backtrace.symbolicated(options: []))
        let images = symbolicated.images
        let frame = try #require(symbolicated.frames.first)
        let symbol = try #require(frame.symbol)
        let path = try #require(images[symbol.imageIndex].path)
        // A copy of its own, not the one the process shares, to count what this look-up reads.
        let tables = try #require(ImageLineTables(imageAt: path))
        #expect(tables.isIndexed)
        #expect(tables.tablesRead == 0)
        let address = try #require(UInt64(frame.captured.adjustedProgramCounter))
        let base = try #require(UInt64(images[symbol.imageIndex].baseAddress))
        let location = tables.location(at: address - base)
        #expect(location?.path.hasSuffix("CompileUnitIndexTests.swift") == true)
        #expect(tables.tablesRead == 1)
    }
    #endif
}

/// `value` in `size` little-endian bytes.
private func le(_ value: UInt64, _ size: Int) -> [UInt8] {
    (0..<size).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
}

/// Units of `.debug_info`, each of one entry, and the abbreviations they use.
private enum Info {
    /// Code 1: DW_AT_stmt_list (sec_offset), DW_AT_low_pc (addr), DW_AT_high_pc (data4, a size).
    /// Code 2: DW_AT_stmt_list (sec_offset), DW_AT_ranges (sec_offset), DW_AT_name (string).
    /// Code 3: DW_AT_stmt_list (sec_offset), DW_AT_name (string): no code.
    static let abbreviations: [UInt8] =
        [1, 0x11, 0, 0x10, 0x17, 0x11, 0x01, 0x12, 0x06, 0, 0]
        + [2, 0x11, 0, 0x10, 0x17, 0x55, 0x17, 0x03, 0x08, 0, 0]
        + [3, 0x11, 0, 0x10, 0x17, 0x03, 0x08, 0, 0]
        + [0]

    /// A DWARF 4 unit whose entry has abbreviation `code` and the given attribute values.
    static func version4(code: UInt8, _ values: [[UInt8]]) -> [UInt8] {
        let body = le(4, 2) + le(0, 4) + [8, code] + values.flatMap { $0 }
        return le(UInt64(body.count), 4) + body
    }

    /// A DWARF 5 compile unit whose entry has abbreviation `code` and the given attribute values.
    static func version5(code: UInt8, _ values: [[UInt8]]) -> [UInt8] {
        let body = le(5, 2) + [1, 8] + le(0, 4) + [code] + values.flatMap { $0 }
        return le(UInt64(body.count), 4) + body
    }
}
