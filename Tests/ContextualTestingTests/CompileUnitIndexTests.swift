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

    @Test("A list in .debug_ranges is from the unit's DW_AT_low_pc, and DW_FORM_indirect names the form read")
    func basesAndIndirectForms() throws {
        let index = try #require(
            CompileUnitIndex(
                info: Info.version4(code: 4, [le(0x100, 4), le(0x7000, 8), le(0, 4)])
                    // DW_AT_high_pc through DW_FORM_indirect, as DW_FORM_addr: an address, not a size.
                    + Info.version4(code: 7, [le(0x200, 4), le(0x9000, 8), [0x01], le(0x9100, 8)]),
                abbreviations: Info.abbreviations,
                ranges: le(0x10, 8) + le(0x20, 8) + le(0, 8) + le(0, 8),
                rangeLists: []
            )
        )
        #expect(index.lineProgramOffsets(at: 0x7015) == [0x100])
        #expect(index.lineProgramOffsets(at: 0x15) == [])
        #expect(index.lineProgramOffsets(at: 0x90FF) == [0x200])
        #expect(index.lineProgramOffsets(at: 0x9100) == [])
    }

    @Test("DWARF 5 addresses and lists given by index are found through DW_AT_addr_base and DW_AT_rnglists_base")
    func indexedAddressesAndLists() throws {
        // .debug_addr: a header of 8 bytes, then the unit's addresses, from its DW_AT_addr_base (8).
        let addresses = [UInt8](repeating: 0, count: 8) + le(0x6000, 8) + le(0xA000, 8)
        // .debug_rnglists: a header of 12 bytes, the unit's offsets table at its DW_AT_rnglists_base (12),
        // then the list its one offset (4, from the base) locates: DW_RLE_startx_length from address 1.
        let lists = [UInt8](repeating: 0, count: 12) + le(4, 4) + [3, 1, 0x30, 0]
        let index = try #require(
            CompileUnitIndex(
                info: Info.version5(code: 5, [le(0x500, 4), [0], le(0x80, 4), le(8, 4)])
                    + Info.version5(code: 6, [le(0x600, 4), [0], le(12, 4), le(8, 4)]),
                abbreviations: Info.abbreviations,
                ranges: [],
                rangeLists: lists,
                addresses: addresses
            )
        )
        #expect(index.lineProgramOffsets(at: 0x6000) == [0x500])
        #expect(index.lineProgramOffsets(at: 0x6080) == [])
        #expect(index.lineProgramOffsets(at: 0xA02F) == [0x600])
        #expect(index.lineProgramOffsets(at: 0xA030) == [])
        // An index past its table, or into a table the image does not have, leaves no index.
        let pastTheOffsets = Info.version5(code: 6, [le(0x600, 4), [0], le(40, 4), le(8, 4)])
        #expect(
            CompileUnitIndex(
                info: pastTheOffsets,
                abbreviations: Info.abbreviations,
                ranges: [],
                rangeLists: lists,
                addresses: addresses
            ) == nil
        )
        let noAddresses = Info.version5(code: 5, [le(0x500, 4), [0], le(0x80, 4), le(8, 4)])
        #expect(
            CompileUnitIndex(info: noAddresses, abbreviations: Info.abbreviations, ranges: [], rangeLists: []) == nil
        )
        let pastTheTable = Info.version5(code: 5, [le(0x500, 4), [9], le(0x80, 4), le(8, 4)])
        #expect(
            CompileUnitIndex(
                info: pastTheTable,
                abbreviations: Info.abbreviations,
                ranges: [],
                rangeLists: [],
                addresses: addresses
            ) == nil
        )
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
        // A line program's offset in a form it cannot have (a string).
        let stringOffset = Info.version4(code: 8, [Array("0\0".utf8), le(0x1000, 8), le(0x100, 4)])
        #expect(
            CompileUnitIndex(info: stringOffset, abbreviations: Info.abbreviations, ranges: [], rangeLists: []) == nil
        )
        // An abbreviation table that ends before its entry's attributes do.
        #expect(
            CompileUnitIndex(
                info: unit,
                abbreviations: Array(Info.abbreviations.prefix(7)),
                ranges: [],
                rangeLists: []
            ) == nil
        )
        // Every prefix of a unit, as a whole section, and as a unit whose length says it ends there: none
        // traps, and a unit cut short is not placed.
        let body = Array(unit.dropFirst(4))
        for count in 0..<unit.count {
            let cut = Array(unit.prefix(count))
            let short = count < body.count ? le(UInt64(count), 4) + body.prefix(count) : []
            for info in [cut, short] {
                let index = CompileUnitIndex(info: info, abbreviations: Info.abbreviations, ranges: [], rangeLists: [])
                #expect(index == nil || index?.units.isEmpty == true)
            }
        }
    }

    #if DEBUG && os(Linux)
    @Test("This test binary's units are indexed, and a look-up runs the line program of one unit, not all")
    func oneUnitPerLookUp() throws {
        let backtrace = try Backtrace.capture()
        let symbolicated = try #require(NativeStack.symbolication.withLock { _ in backtrace.symbolicated(options: []) })
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
    /// Code 4: DW_AT_stmt_list (sec_offset), DW_AT_low_pc (addr), DW_AT_ranges (sec_offset).
    /// Code 5: DW_AT_stmt_list (sec_offset), DW_AT_low_pc (addrx), DW_AT_high_pc (data4),
    /// DW_AT_addr_base (sec_offset), after the address it locates.
    /// Code 6: DW_AT_stmt_list (sec_offset), DW_AT_ranges (rnglistx), DW_AT_rnglists_base (sec_offset),
    /// DW_AT_addr_base (sec_offset).
    /// Code 7: DW_AT_stmt_list (sec_offset), DW_AT_low_pc (addr), DW_AT_high_pc (indirect).
    /// Code 8: DW_AT_stmt_list (string), DW_AT_low_pc (addr), DW_AT_high_pc (data4).
    static let abbreviations: [UInt8] =
        [1, 0x11, 0, 0x10, 0x17, 0x11, 0x01, 0x12, 0x06, 0, 0]
        + [2, 0x11, 0, 0x10, 0x17, 0x55, 0x17, 0x03, 0x08, 0, 0]
        + [3, 0x11, 0, 0x10, 0x17, 0x03, 0x08, 0, 0]
        + [4, 0x11, 0, 0x10, 0x17, 0x11, 0x01, 0x55, 0x17, 0, 0]
        + [5, 0x11, 0, 0x10, 0x17, 0x11, 0x1B, 0x12, 0x06, 0x73, 0x17, 0, 0]
        + [6, 0x11, 0, 0x10, 0x17, 0x55, 0x23, 0x74, 0x17, 0x73, 0x17, 0, 0]
        + [7, 0x11, 0, 0x10, 0x17, 0x11, 0x01, 0x12, 0x16, 0, 0]
        + [8, 0x11, 0, 0x10, 0x08, 0x11, 0x01, 0x12, 0x06, 0, 0]
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
