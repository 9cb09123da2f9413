// The source lines of ELF images' code, from their DWARF line tables, for finding an unimplemented
// read's line in a debug build without a pass over the debug information per line.

import Contextual
import Foundation

// MARK: - LineTable

/// The rows of line programs of an ELF image's `.debug_line` section (DWARF 2 to 5, 64-bit little-endian
/// ELF), sorted by address: the source file, line and column of each address of their code.
///
/// A DWARF 5 unit's directory and file names are read in the forms `DW_FORM_string`, `DW_FORM_line_strp`
/// (from `.debug_line_str`) and `DW_FORM_strp` (from `.debug_str`); a unit that names them in another form
/// (such as `DW_FORM_strx`, whose offsets table only the compilation unit locates) is skipped.
///
/// Every size and count read from the image is checked against the bytes left before it is used: a
/// malformed unit is skipped, or ends the reading of the section.
///
/// ``ImageLineTables`` reads one per compilation unit, when an address in its code is first looked up.
///
/// ```swift
/// let table = LineTable(debugLine: bytes, units: [offset], linkBase: linkBase)
/// let location = table.location(at: address - loadAddress)
/// ```
///
/// - Complexity: Building is O(n) in the size of the units' line programs, plus sorting their sequences; a
///   look-up is O(log n).
struct LineTable: Sendable {
    /// A source location found in the table.
    struct Location: Equatable, Sendable {
        /// The absolute path of the source file (or its name, when its directory is unknown).
        var path: String
        /// The line, 1-based; 0 when the compiler gave none.
        var line: Int
        /// The column, 1-based; 0 when the compiler gave none.
        var column: Int
    }

    /// A range of addresses that share one source location.
    private struct Row {
        var start: UInt64
        var length: UInt32
        var file: UInt32
        var line: UInt32
        var column: UInt32
    }

    /// The rows, sorted by start address; their ranges do not overlap within one sequence.
    private let rows: [Row]
    /// The source files' paths, indexed by ``Row/file``.
    private let files: [String]
    /// What to add to an address relative to the image's load address to get the address the line tables
    /// use: the link address of the loadable segment (PT_LOAD) that maps the start of the file, the part of
    /// the image its load address is the address of.
    let linkBase: UInt64

    /// The source location of `address`, an offset from the image's load address; `nil` if no line
    /// program covers it.
    func location(at address: UInt64) -> Location? { row(at: address)?.location }

    /// The row that covers `address`, an offset from the image's load address: the link address where
    /// it starts, and its source location; `nil` if no line program covers it.
    func row(at address: UInt64) -> (start: UInt64, location: Location)? {
        let address = address &+ linkBase
        // The last row that starts at or before the address.
        var low = 0
        var high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if rows[middle].start <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let row = rows[low - 1]
        guard address - row.start < UInt64(row.length) else { return nil }
        return (row.start, Location(path: files[Int(row.file)], line: Int(row.line), column: Int(row.column)))
    }

    /// Reads the units of a `.debug_line` section's bytes, `debugLine`, with the string sections their
    /// DWARF 5 headers may refer to: `.debug_line_str`'s bytes, `lineStrings`, and `.debug_str`'s,
    /// `strings`. Reading stops at the first unit whose length does not fit in the section; a unit it does
    /// not understand, or whose header is malformed, is skipped.
    ///
    /// `units`, the offsets of the units to read, reads those alone (an offset outside the section reads
    /// nothing); `nil` reads every unit.
    init(
        debugLine: [UInt8],
        units: [Int]? = nil,
        lineStrings: [UInt8] = [],
        strings: [UInt8] = [],
        linkBase: UInt64 = 0
    ) {
        var builder = Builder()
        var unit = ByteCursor(debugLine)
        if let units {
            for offset in units where offset >= 0 && offset < debugLine.count {
                unit.offset = offset
                _ = builder.readUnit(&unit, lineStrings: lineStrings, strings: strings)
            }
        } else {
            while unit.offset < debugLine.count {
                guard let next = builder.readUnit(&unit, lineStrings: lineStrings, strings: strings) else { break }
                unit.offset = next
            }
        }
        builder.sortRows()
        self.rows = builder.rows
        self.files = builder.files
        self.linkBase = linkBase
    }

    /// How many rows the table has.
    var rowCount: Int { rows.count }

    /// Runs line programs and collects their rows.
    private struct Builder {
        var rows: [Row] = []
        /// The rows of each sequence, each in ascending order of address.
        var sequences: [Range<Int>] = []
        var files: [String] = []
        var fileIndices: [String: UInt32] = [:]

        /// Sorts the rows by address: each sequence's rows are in order and cover one range of addresses,
        /// so the sequences are put in order as wholes, unless they overlap.
        mutating func sortRows() {
            sequences.sort { rows[$0.lowerBound].start < rows[$1.lowerBound].start }
            var sorted: [Row] = []
            sorted.reserveCapacity(rows.count)
            for sequence in sequences {
                if let last = sorted.last, rows[sequence.lowerBound].start < last.start + UInt64(last.length) {
                    rows.sort { $0.start < $1.start }
                    return
                }
                sorted.append(contentsOf: rows[sequence])
            }
            rows = sorted
        }

        /// The index of `path` in ``files``.
        mutating func file(_ path: String) -> UInt32 {
            if let index = fileIndices[path] { return index }
            let index = UInt32(files.count)
            files.append(path)
            fileIndices[path] = index
            return index
        }

        /// Reads the unit at the cursor and runs its program; returns the offset of the next unit, or `nil`
        /// if the section cannot be read further. A unit it does not understand is skipped.
        mutating func readUnit(_ cursor: inout ByteCursor, lineStrings: [UInt8], strings: [UInt8]) -> Int? {
            var offsetSize = 4
            var length = cursor.fixed(4)
            if length == 0xFFFF_FFFF {
                offsetSize = 8
                length = cursor.fixed(8)
            }
            guard length > 0, cursor.offset <= cursor.bytes.count,
                length <= UInt64(cursor.bytes.count - cursor.offset)
            else { return nil }
            let end = cursor.offset + Int(length)
            let version = cursor.fixed(2)
            guard (2...5).contains(version) else { return end }
            if version >= 5 { cursor.offset += 2 }  // address_size, segment_selector_size
            let headerLength = cursor.fixed(offsetSize)
            guard cursor.offset <= end, headerLength <= UInt64(end - cursor.offset) else { return end }
            let programStart = cursor.offset + Int(headerLength)
            let minimumInstructionLength = cursor.fixed(1)
            if version >= 4 { cursor.offset += 1 }  // maximum_operations_per_instruction
            cursor.offset += 1  // default_is_stmt
            let lineBase = Int(Int8(truncatingIfNeeded: cursor.fixed(1)))
            let lineRange = cursor.fixed(1)
            let opcodeBase = Int(cursor.fixed(1))
            guard lineRange > 0, opcodeBase > 0 else { return end }
            var operandCounts: [UInt64] = []
            for _ in 1..<opcodeBase { operandCounts.append(cursor.fixed(1)) }

            // The units' files, by the index the program uses (from 0 in DWARF 5, from 1 before), as indices
            // into ``files``.
            var unitFiles: [UInt32] = []
            if version >= 5 {
                let strings = (line: lineStrings, other: strings)
                guard let directories = Self.entries(&cursor, end: end, offsetSize: offsetSize, strings: strings),
                    let names = Self.entries(&cursor, end: end, offsetSize: offsetSize, strings: strings)
                else { return end }
                for entry in names {
                    let directory =
                        directories.indices.contains(entry.directory) ? directories[entry.directory].path : ""
                    unitFiles.append(file(Self.join(directory, entry.path)))
                }
            } else {
                var directories = [""]
                while cursor.offset < end, case let directory = cursor.string(), !directory.isEmpty {
                    directories.append(directory)
                }
                unitFiles.append(file(""))
                while cursor.offset < end, case let name = cursor.string(), !name.isEmpty {
                    let directory = Int(clamping: cursor.unsigned())
                    _ = cursor.unsigned()  // modification time
                    _ = cursor.unsigned()  // length
                    unitFiles.append(
                        file(Self.join(directories.indices.contains(directory) ? directories[directory] : "", name))
                    )
                }
            }
            runProgram(
                cursor.bytes,
                from: programStart,
                to: end,
                files: unitFiles,
                minimumInstructionLength: minimumInstructionLength,
                lineBase: lineBase,
                lineRange: Int(lineRange),
                operandCounts: operandCounts
            )
            return end
        }

        /// Runs the line program in `bytes[start..<end]` and appends its rows: each row's location covers
        /// the addresses from its own to the next row's in the same sequence.
        ///
        /// It reads the bytes through free functions, with no closure, so that an unoptimized build reads a
        /// test binary's line tables in a fraction of a second.
        private mutating func runProgram(
            _ bytes: [UInt8],
            from start: Int,
            to end: Int,
            files unitFiles: [UInt32],
            minimumInstructionLength: UInt64,
            lineBase: Int,
            lineRange: Int,
            operandCounts: [UInt64]
        ) {
            let opcodeBase = operandCounts.count + 1
            var offset = start
            // The state machine (one operation per instruction, as on every target Swift supports).
            var address: UInt64 = 0
            var file = 1
            var line = 1
            var column = 0
            // The last row of the sequence, waiting for the next row's address.
            var hasPending = false
            var pending = Row(start: 0, length: 0, file: 0, line: 0, column: 0)
            var pendingFile = 0
            var sequenceStart = rows.count
            defer {
                if sequenceStart < rows.count { sequences.append(sequenceStart..<rows.count) }
            }
            while offset < end {
                let opcode = Int(bytes[offset])
                offset += 1
                var emits = false
                var endsSequence = false
                if opcode >= opcodeBase {
                    let adjusted = opcode - opcodeBase
                    address &+= UInt64(adjusted / lineRange) &* minimumInstructionLength
                    line &+= lineBase + adjusted % lineRange
                    emits = true
                } else {
                    switch opcode {
                    case 0:
                        let size = readUnsigned(bytes, &offset)
                        guard size > 0, offset < end, size <= UInt64(end - offset) else { return }
                        let next = offset + Int(size)
                        switch bytes[offset] {
                        case 1:
                            emits = true
                            endsSequence = true
                        case 2:
                            offset += 1
                            address = readFixed(bytes, &offset, Int(size) - 1)
                        default:
                            break
                        }
                        offset = next
                    case 1: emits = true
                    case 2: address &+= readUnsigned(bytes, &offset) &* minimumInstructionLength
                    case 3: line &+= readSigned(bytes, &offset)
                    case 4: file = Int(truncatingIfNeeded: readUnsigned(bytes, &offset))
                    case 5: column = Int(truncatingIfNeeded: readUnsigned(bytes, &offset))
                    case 8: address &+= UInt64((255 - opcodeBase) / lineRange) &* minimumInstructionLength
                    case 9: address &+= readFixed(bytes, &offset, 2)
                    default:
                        for _ in 0..<operandCounts[opcode - 1] { _ = readUnsigned(bytes, &offset) }
                    }
                }
                guard emits else { continue }
                if hasPending, pending.start < address, address - pending.start <= UInt64(UInt32.max),
                    pendingFile >= 0, pendingFile < unitFiles.count
                {
                    pending.length = UInt32(address - pending.start)
                    pending.file = unitFiles[pendingFile]
                    rows.append(pending)
                }
                if endsSequence {
                    if sequenceStart < rows.count { sequences.append(sequenceStart..<rows.count) }
                    sequenceStart = rows.count
                    hasPending = false
                    address = 0
                    file = 1
                    line = 1
                    column = 0
                } else {
                    hasPending = true
                    pending.start = address
                    pending.line = UInt32(truncatingIfNeeded: max(line, 0))
                    pending.column = UInt32(truncatingIfNeeded: max(column, 0))
                    pendingFile = file
                }
            }
        }

        /// Reads a DWARF 5 directory or file name table, which ends by `end`: each entry's path and
        /// directory index; `nil` for a form this reader does not know, or a table that does not fit.
        ///
        /// `strings` are the bytes of `.debug_line_str` (`line`) and `.debug_str` (`other`).
        static func entries(
            _ cursor: inout ByteCursor,
            end: Int,
            offsetSize: Int,
            strings: (line: [UInt8], other: [UInt8])
        ) -> [(path: String, directory: Int)]? {
            /// The string in `section` at the offset read from the cursor; `nil` if it is outside.
            func referencedString(in section: [UInt8]) -> String? {
                let offset = cursor.fixed(offsetSize)
                guard offset < UInt64(section.count) else { return nil }
                var reader = ByteCursor(section)
                reader.offset = Int(offset)
                return reader.string()
            }
            var formats: [(content: UInt64, form: UInt64)] = []
            for _ in 0..<cursor.fixed(1) { formats.append((cursor.unsigned(), cursor.unsigned())) }
            let count = cursor.unsigned()
            // Every form read takes at least a byte, so an entry without one could not be told apart.
            guard count == 0 || !formats.isEmpty else { return nil }
            var entries: [(path: String, directory: Int)] = []
            var read: UInt64 = 0
            while read < count {
                // An entry starts before the unit's end, where every form takes at least a byte.
                guard cursor.offset < end else { return nil }
                read += 1
                var entry = (path: "", directory: 0)
                for format in formats {
                    var value: UInt64 = 0
                    var string: String?
                    switch format.form {
                    case 0x08: string = cursor.string()  // DW_FORM_string
                    case 0x1F:  // DW_FORM_line_strp
                        guard let found = referencedString(in: strings.line) else { return nil }
                        string = found
                    case 0x0E:  // DW_FORM_strp
                        guard let found = referencedString(in: strings.other) else { return nil }
                        string = found
                    case 0x0F: value = cursor.unsigned()  // DW_FORM_udata
                    case 0x0B: value = cursor.fixed(1)  // DW_FORM_data1
                    case 0x05: value = cursor.fixed(2)  // DW_FORM_data2
                    case 0x06: value = cursor.fixed(4)  // DW_FORM_data4
                    case 0x07: value = cursor.fixed(8)  // DW_FORM_data8
                    case 0x1E: cursor.offset += 16  // DW_FORM_data16
                    case 0x09:  // DW_FORM_block
                        let size = cursor.unsigned()
                        guard cursor.offset <= end, size <= UInt64(end - cursor.offset) else { return nil }
                        cursor.offset += Int(size)
                    default: return nil
                    }
                    if format.content == 1, let string { entry.path = string }  // DW_LNCT_path
                    if format.content == 2 { entry.directory = Int(clamping: value) }  // DW_LNCT_directory_index
                }
                // A table that runs past its unit is malformed.
                guard cursor.offset <= end else { return nil }
                entries.append(entry)
            }
            return entries
        }

        /// `name` in `directory`, unless `name` is absolute.
        static func join(_ directory: String, _ name: String) -> String {
            name.hasPrefix("/") || directory.isEmpty ? name : directory + "/" + name
        }
    }
}
