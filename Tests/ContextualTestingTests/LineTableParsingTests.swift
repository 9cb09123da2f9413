// Reading a `.debug_line` section from its bytes: well-formed units give rows, malformed ones give none,
// and no value read from them traps or loops without end.

import Foundation
import Testing

@testable import ContextualTesting

@Suite("Reading line tables from bytes")
struct LineTableParsingTests {
    @Test("A DWARF 4 unit gives the rows of its program")
    func readsAUnit() {
        let table = LineTable(debugLine: Unit.version4(program: Unit.program))
        #expect(table.location(at: 0x1004) == LineTable.Location(path: "dir/a.swift", line: 10, column: 0))
        #expect(table.location(at: 0x1010) == LineTable.Location(path: "dir/a.swift", line: 12, column: 0))
        #expect(table.location(at: 0x1020) == nil)
    }

    @Test("A DWARF 5 unit naming its files through .debug_str and .debug_line_str gives its rows")
    func readsStringForms() {
        let strings: [UInt8] = Array("x\0/src\0".utf8)
        let lineStrings: [UInt8] = Array("b.swift\0".utf8)
        // One directory, DW_LNCT_path in DW_FORM_strp; one file, DW_LNCT_path in DW_FORM_line_strp and
        // DW_LNCT_directory_index in DW_FORM_udata.
        let tables: [UInt8] = [1, 1, 0x0E, 1, 2, 0, 0, 0] + [2, 1, 0x1F, 2, 0x0F, 1, 0, 0, 0, 0, 0]
        let table = LineTable(
            debugLine: Unit.version5(tables: tables, program: Unit.program(file: 0)),
            lineStrings: lineStrings,
            strings: strings
        )
        #expect(table.location(at: 0x1004)?.path == "/src/b.swift")
    }

    @Test("A unit cut short is not read, nor are the units before it lost")
    func truncatedUnit() {
        let unit = Unit.version4(program: Unit.program)
        for count in 0..<unit.count {
            #expect(LineTable(debugLine: Array(unit.prefix(count))).rowCount == 0)
        }
        let table = LineTable(debugLine: unit + unit.dropLast(5))
        #expect(table.location(at: 0x1004)?.line == 10)
    }

    @Test("A DWARF64 unit length or header length of 2^63 and more is refused, not added to an offset")
    func hugeLengths() {
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 0, 0, 0, 0, 0, 0x80]
        #expect(LineTable(debugLine: huge + [UInt8](repeating: 0, count: 32)).rowCount == 0)
        let largest: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0xFF, count: 8)
        #expect(LineTable(debugLine: largest).rowCount == 0)
        // A unit of 16 bytes whose header length is 2^64 - 1.
        let header: [UInt8] =
            [0xFF, 0xFF, 0xFF, 0xFF, 16, 0, 0, 0, 0, 0, 0, 0, 4, 0] + [UInt8](repeating: 0xFF, count: 8)
        #expect(LineTable(debugLine: header + [0, 0, 0, 0, 0, 0]).rowCount == 0)
    }

    @Test("A DWARF 4 file's directory index of 2^64 - 1 is no directory")
    func hugeDirectoryIndex() {
        let hugeULEB: [UInt8] = [UInt8](repeating: 0xFF, count: 9) + [0x01]
        let header = Unit.parameters + Array("dir\0\0a.swift\0".utf8) + hugeULEB + [0, 0, 0]
        let unit = Unit.unit(version: [4, 0], header: header, program: Unit.program)
        #expect(LineTable(debugLine: unit).location(at: 0x1004)?.path == "a.swift")
    }

    @Test("A ULEB128 size of an extended opcode or a block that exceeds the unit ends its reading")
    func hugeSizes() {
        let hugeULEB: [UInt8] = [UInt8](repeating: 0xFF, count: 9) + [0x01]
        // DW_LNE with a size of 2^64 - 1, then a row the program never reaches.
        let extended = LineTable(debugLine: Unit.version4(program: [0] + hugeULEB + Unit.program))
        #expect(extended.rowCount == 0)
        // A directory entry in DW_FORM_block of 2^64 - 1 bytes.
        let block: [UInt8] = [1, 1, 0x09, 1] + hugeULEB + [0]
        #expect(LineTable(debugLine: Unit.version5(tables: block, program: Unit.program(file: 0))).rowCount == 0)
    }

    @Test("A line advanced past Int's range wraps around instead of trapping")
    func hugeLineAdvances() {
        let advance: [UInt8] = [0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F]  // 2^62 - 1
        // Eight advances of 2^62 - 1, a row at 0x1000, then the end of the sequence at 0x1010.
        let program =
            Unit.setAddress(0x1000) + Array(repeating: advance, count: 8).flatMap { $0 }
            + [0x01, 0x02, 0x10, 0x00, 0x01, 0x01]
        #expect(LineTable(debugLine: Unit.version4(program: program)).rowCount == 1)
        // A signed advance of nine bytes, whose sign bit is the 64th: -2^63.
        let lowest: [UInt8] = [0x03] + [UInt8](repeating: 0x80, count: 8) + [0x40]
        let down = Unit.setAddress(0x1000) + lowest + lowest + [0x01, 0x02, 0x10, 0x00, 0x01, 0x01]
        #expect(LineTable(debugLine: Unit.version4(program: down)).rowCount == 1)
    }

    @Test("An entry count of 2^64 - 1 in a DWARF 5 file table stops at the unit's end")
    func hugeEntryCount() {
        let hugeULEB: [UInt8] = [UInt8](repeating: 0xFF, count: 9) + [0x01]
        // One directory format (DW_LNCT_path, DW_FORM_string) and 2^64 - 1 directories in a few bytes.
        let tables: [UInt8] = [1, 1, 0x08] + hugeULEB + Array("a\0b\0".utf8)
        #expect(LineTable(debugLine: Unit.version5(tables: tables, program: Unit.program(file: 0))).rowCount == 0)
        // One format (DW_LNCT_directory_index, DW_FORM_udata) and the count last in the section, where a
        // ULEB128 read takes no bytes.
        let atTheEnd: [UInt8] = [1, 2, 0x0F] + hugeULEB
        #expect(LineTable(debugLine: Unit.version5(tables: atTheEnd, program: [])).rowCount == 0)
        // No formats at all: entries that take no bytes.
        let empty: [UInt8] = [0] + hugeULEB
        #expect(LineTable(debugLine: Unit.version5(tables: empty, program: Unit.program(file: 0))).rowCount == 0)
    }

    @Test("An ELF image's line tables are read from the file, unless its sections do not fit in it")
    func readsAnImage() throws {
        let lines = Unit.version4(program: Unit.program)
        #expect(try Image.table(lines: lines)?.location(at: 0x1004)?.line == 10)
        #expect(try Image.table(lines: lines, linkOffset: 0x1000)?.location(at: 0x4)?.line == 10)
        // A size one past the end of the file (the section headers follow the section), or the largest.
        #expect(try Image.table(lines: lines, size: UInt64(lines.count + 3 * 64)) != nil)
        #expect(try Image.table(lines: lines, size: UInt64(lines.count + 3 * 64) + 1) == nil)
        #expect(try Image.table(lines: lines, size: .max) == nil)
        // A section of type SHT_NOBITS, which has no bytes in the file.
        #expect(try Image.table(lines: lines, type: 8) == nil)
        // No loadable segment at file offset 0, whose address the line tables' addresses are relative to.
        #expect(try Image.table(lines: lines, segmentOffset: 0x1000) == nil)
    }

    @Test("An image's units are indexed at their link addresses: a look-up adds the link base, then reads one unit")
    func indexesAnImage() throws {
        let lines = Unit.version4(program: Unit.program)
        // One DWARF 4 unit: DW_AT_stmt_list 0 (sec_offset), DW_AT_low_pc 0x1000 (addr), DW_AT_high_pc 0x100
        // (data4, a size).
        let abbreviations: [UInt8] = [1, 0x11, 0, 0x10, 0x17, 0x11, 0x01, 0x12, 0x06, 0, 0, 0]
        let body = Image.le(4, 2) + Image.le(0, 4) + [8, 1] + Image.le(0, 4) + Image.le(0x1000, 8) + Image.le(0x100, 4)
        let info = Image.le(UInt64(body.count), 4) + body
        let sections = [(name: ".debug_info", bytes: info), (name: ".debug_abbrev", bytes: abbreviations)]
        let tables = try #require(try Image.table(lines: lines, linkOffset: 0x1000, sections: sections))
        #expect(tables.isIndexed)
        #expect(tables.location(at: 0x4)?.line == 10)
        #expect(tables.tablesRead == 1)
        // 0x1004 from the load address is at 0x2004, outside the unit's code.
        #expect(tables.location(at: 0x1004) == nil)
        // Without .debug_info, every line program is read, at the same addresses.
        let unindexed = try #require(try Image.table(lines: lines, linkOffset: 0x1000))
        #expect(!unindexed.isIndexed)
        #expect(unindexed.location(at: 0x4)?.line == 10)
    }

    @Test("A member of an extension declared in another module than its type's is told apart by its mangling")
    func extensionsInOtherModules() {
        #expect(UnimplementedReadIssue.isInExtension("$s10Contextual7ContextC7MyTestsE4readSiyF"))
        #expect(
            UnimplementedReadIssue.isInExtension(
                "$s10Contextual7ContextC0A12TestingTestsE23paymentsFromAnExtensionSSyF"
            )
        )
        #expect(
            !UnimplementedReadIssue.isInExtension(
                "$s10Contextual10BootReportV15FormatViolationV5field7problemAESS_SStcfC"
            )
        )
        #expect(!UnimplementedReadIssue.isInExtension("$s10Contextual7ContextC4readSiyF"))
        #expect(!UnimplementedReadIssue.isInExtension("main"))
    }
}

/// Builds `.debug_line` units.
private enum Unit {
    /// A program with rows at 0x1000 (line 10) and 0x1010 (line 12) of `file`, ending at 0x1020.
    static func program(file: UInt8) -> [UInt8] {
        setAddress(0x1000) + [0x04, file, 0x03, 9, 0x01, 0x02, 0x10, 0x03, 2, 0x01, 0x02, 0x10, 0x00, 0x01, 0x01]
    }

    /// ``program(file:)`` for the first file of a DWARF 4 unit.
    static let program = program(file: 1)

    /// `DW_LNE_set_address` to `address`.
    static func setAddress(_ address: UInt64) -> [UInt8] {
        [0x00, 9, 0x02] + (0..<8).map { UInt8(truncatingIfNeeded: address >> ($0 * 8)) }
    }

    /// The header fields from `minimum_instruction_length` to `standard_opcode_lengths`.
    static let parameters: [UInt8] = [1, 1, 1, 0xFB, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]

    /// A 32-bit DWARF 4 unit with directory `dir` and file `a.swift`.
    static func version4(program: [UInt8]) -> [UInt8] {
        let header = parameters + Array("dir\0\0a.swift\0".utf8) + [1, 0, 0, 0]
        return unit(version: [4, 0], header: header, program: program)
    }

    /// A 32-bit DWARF 5 unit whose directory and file tables are `tables`.
    static func version5(tables: [UInt8], program: [UInt8]) -> [UInt8] {
        unit(version: [5, 0, 8, 0], header: parameters + tables, program: program)
    }

    /// A 32-bit unit: its length, `version` (and the fields up to the header length), the header length,
    /// `header` and `program`.
    static func unit(version: [UInt8], header: [UInt8], program: [UInt8]) -> [UInt8] {
        let afterLength = version + le32(header.count) + header + program
        return le32(afterLength.count) + afterLength
    }

    /// `value` in 4 little-endian bytes.
    static func le32(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

/// Builds a 64-bit little-endian ELF image with one loadable segment and a `.debug_line` section.
private enum Image {
    /// The table read from an image whose `.debug_line` holds `lines`, with the given section header's
    /// size and type, and the given loadable segment's file offset and link address; `sections`, more
    /// sections by name (`.debug_info`, say), go before `.debug_line`.
    static func table(
        lines: [UInt8],
        size: UInt64? = nil,
        type: UInt32 = 1,
        segmentOffset: UInt64 = 0,
        linkOffset: UInt64 = 0,
        sections more: [(name: String, bytes: [UInt8])] = []
    ) throws -> ImageLineTables? {
        var names = Array("\0.shstrtab\0.debug_line\0".utf8)
        var moreNames: [Int] = []
        for section in more {
            moreNames.append(names.count)
            names += Array(section.name.utf8) + [0]
        }
        let namesOffset = 64 + 56
        var moreOffsets: [Int] = []
        var offset = namesOffset + names.count
        for section in more {
            moreOffsets.append(offset)
            offset += section.bytes.count
        }
        let linesOffset = offset
        let sectionsOffset = linesOffset + lines.count
        var image = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1] + [UInt8](repeating: 0, count: 9)
        image += le(2, 2) + le(0x3E, 2) + le(1, 4) + le(0, 8) + le(64, 8) + le(UInt64(sectionsOffset), 8)
        image += le(0, 4) + le(64, 2) + le(56, 2) + le(1, 2) + le(64, 2) + le(UInt64(3 + more.count), 2) + le(1, 2)
        // PT_LOAD: type, flags, offset, address, physical address, sizes, alignment.
        image += le(1, 4) + le(5, 4) + le(segmentOffset, 8) + le(linkOffset, 8) + le(linkOffset, 8)
        image += le(0x1000, 8) + le(0x1000, 8) + le(0x1000, 8)
        image += names + more.flatMap(\.bytes) + lines
        func section(name: UInt64, type: UInt64, offset: Int, size: UInt64) -> [UInt8] {
            le(name, 4) + le(type, 4) + le(0, 8) + le(0, 8) + le(UInt64(offset), 8) + le(size, 8)
                + [UInt8](repeating: 0, count: 24)
        }
        image += [UInt8](repeating: 0, count: 64)
        image += section(name: 1, type: 3, offset: namesOffset, size: UInt64(names.count))
        image += section(name: 11, type: UInt64(type), offset: linesOffset, size: size ?? UInt64(lines.count))
        for (index, entry) in more.enumerated() {
            image += section(
                name: UInt64(moreNames[index]),
                type: 1,
                offset: moreOffsets[index],
                size: UInt64(entry.bytes.count)
            )
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("LineTable-\(UUID().uuidString)")
        try Data(image).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return ImageLineTables(imageAt: url.path)
    }

    /// `value` in `size` little-endian bytes.
    static func le(_ value: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}
