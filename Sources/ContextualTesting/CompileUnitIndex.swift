// Which compilation unit of an ELF image holds the code at an address, from the first entry of each unit
// in `.debug_info`: the unit whose line program to run for that address.

// MARK: - CompileUnitIndex

/// The compilation units of an image's `.debug_info` (DWARF 2 to 5), each with the span of addresses of
/// its code and the offset of its line program in `.debug_line`.
///
/// Each unit's first entry (`DW_TAG_compile_unit`) is read with its abbreviation: its `DW_AT_stmt_list`
/// and either `DW_AT_low_pc` and `DW_AT_high_pc`, or `DW_AT_ranges` (a list in `.debug_ranges`, or in
/// `.debug_rnglists` for DWARF 5), of which the span from the lowest address to the highest is kept. A
/// compiler that places each function in a section of its own (Swift, clang) still gives a unit's
/// functions contiguous addresses in the linked image, one object file's sections after another's, so
/// spans seldom overlap; where they do, every unit whose span holds an address is returned, and the
/// caller looks in each.
///
/// A unit without code or without a line program is left out. An entry this reader cannot read (a form
/// it does not know; an address or a list in `.debug_addr`'s or `.debug_rnglists`' index tables, which
/// only further attributes locate; a size that does not fit) makes the whole index `nil`: the caller then
/// runs every line program, rather than miss a unit.
///
/// ```swift
/// let index = CompileUnitIndex(info: info, abbreviations: abbrev, ranges: ranges, rangeLists: [])
/// let programs = index?.lineProgramOffsets(at: address)
/// ```
struct CompileUnitIndex: Sendable {
    /// A unit: the span of its code's addresses, and its line program's offset.
    struct Unit: Sendable {
        var start: UInt64
        var end: UInt64
        var lineProgram: Int
    }

    /// The units with code and a line program, sorted by the start of their spans.
    let units: [Unit]

    /// The offsets in `.debug_line` of the line programs of the units whose spans hold `address` (a link
    /// address, as the debug information gives them).
    ///
    /// - Complexity: O(u) in the units.
    func lineProgramOffsets(at address: UInt64) -> [Int] {
        var offsets: [Int] = []
        for unit in units where unit.start <= address && address < unit.end { offsets.append(unit.lineProgram) }
        return offsets
    }

    // MARK: - Reading

    /// Indexes the units of `info`, the bytes of `.debug_info`, with those of `.debug_abbrev`
    /// (`abbreviations`), `.debug_ranges` (`ranges`) and `.debug_rnglists` (`rangeLists`); `nil` if an
    /// entry cannot be read.
    ///
    /// - Complexity: O(n) in the units' first entries and their range lists.
    init?(info: [UInt8], abbreviations: [UInt8], ranges: [UInt8], rangeLists: [UInt8]) {
        var units: [Unit] = []
        var next = 0
        while next < info.count {
            var cursor = ByteCursor(info)
            cursor.offset = next
            var offsetSize = 4
            var length = cursor.fixed(4)
            if length == 0xFFFF_FFFF {
                offsetSize = 8
                length = cursor.fixed(8)
            }
            guard length > 0, cursor.offset <= info.count, length <= UInt64(info.count - cursor.offset) else {
                return nil
            }
            let end = cursor.offset + Int(length)
            next = end
            let version = cursor.fixed(2)
            let addressSize: Int
            let abbreviationsOffset: UInt64
            switch version {
            case 2...4:
                abbreviationsOffset = cursor.fixed(offsetSize)
                addressSize = Int(cursor.fixed(1))
            case 5:
                let unitType = cursor.fixed(1)
                addressSize = Int(cursor.fixed(1))
                abbreviationsOffset = cursor.fixed(offsetSize)
                switch unitType {
                case 1, 3: break  // DW_UT_compile, DW_UT_partial
                case 4, 5: cursor.offset += 8  // DW_UT_skeleton, DW_UT_split_compile: their DWO id
                default: continue  // type units hold no code
                }
            default:
                return nil
            }
            guard addressSize == 4 || addressSize == 8 else { return nil }
            let code = cursor.unsigned()
            guard code != 0 else { continue }
            guard let attributes = Self.abbreviation(code, at: abbreviationsOffset, in: abbreviations) else {
                return nil
            }
            let forms = FormReader(offsetSize: offsetSize, addressSize: addressSize, version: Int(version))
            var lineProgram: UInt64?
            var low: UInt64?
            var high: (value: UInt64, isOffset: Bool)?
            var rangeList: UInt64?
            for attribute in attributes {
                guard let value = forms.read(attribute.form, implicit: attribute.implicit, from: &cursor, end: end)
                else { return nil }
                switch attribute.name {
                case 0x10: lineProgram = value  // DW_AT_stmt_list
                case 0x11:  // DW_AT_low_pc
                    guard attribute.form == 0x01 else { return nil }  // DW_FORM_addr; not an index
                    low = value
                case 0x12:  // DW_AT_high_pc: an address, or a size from DW_AT_low_pc
                    guard attribute.form != 0x1B, !(0x29...0x2C).contains(attribute.form) else { return nil }
                    high = (value, attribute.form != 0x01)
                case 0x55:  // DW_AT_ranges
                    guard attribute.form != 0x23 else { return nil }  // DW_FORM_rnglistx: an index
                    rangeList = value
                default: break
                }
            }
            guard cursor.offset <= end else { return nil }
            guard let lineProgram, lineProgram <= UInt64(Int.max) else { continue }
            let span: (start: UInt64, end: UInt64)?
            if let rangeList {
                guard
                    let found = Self.span(
                        ofList: rangeList,
                        base: low ?? 0,
                        addressSize: addressSize,
                        in: version >= 5 ? rangeLists : ranges,
                        isRangeList: version >= 5
                    )
                else { return nil }
                span = found
            } else if let low, let high {
                span = (low, high.isOffset ? low &+ high.value : high.value)
            } else {
                span = nil
            }
            guard let span, span.start < span.end else { continue }
            units.append(Unit(start: span.start, end: span.end, lineProgram: Int(lineProgram)))
        }
        units.sort { $0.start < $1.start }
        self.units = units
    }

    /// An attribute of an abbreviation: its name, its form, and the value of a `DW_FORM_implicit_const`.
    struct Attribute {
        var name: UInt64
        var form: UInt64
        var implicit: UInt64
    }

    /// The attributes of the abbreviation `code` in the table at `offset` of `.debug_abbrev`; `nil` if the
    /// table has no such abbreviation or runs out.
    ///
    /// The entries before it are stepped over without being kept: a unit of a C module that Swift imports
    /// shares the table of the Swift unit before it, whose entries, hundreds of them, come first.
    static func abbreviation(_ code: UInt64, at offset: UInt64, in bytes: [UInt8]) -> [Attribute]? {
        guard offset < UInt64(bytes.count) else { return nil }
        // Read from the buffer directly, with no function call per byte in an unoptimized build.
        let found: (start: Int, end: Int)? = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            let count = buffer.count
            var position = Int(offset)
            while position < count {
                let entry = readUnsigned(base, count: count, &position)
                guard entry != 0 else { return nil }  // the end of the table
                _ = readUnsigned(base, count: count, &position)  // the tag
                position += 1  // DW_CHILDREN_yes or DW_CHILDREN_no
                let start = position
                while position < count {
                    // Most names and forms take one byte: read inline, with no call.
                    let name: UInt64
                    if base[position] < 0x80 {
                        name = UInt64(base[position])
                        position += 1
                    } else {
                        name = readUnsigned(base, count: count, &position)
                    }
                    guard position < count else { break }
                    let form: UInt64
                    if base[position] < 0x80 {
                        form = UInt64(base[position])
                        position += 1
                    } else {
                        form = readUnsigned(base, count: count, &position)
                    }
                    if name == 0 && form == 0 { break }
                    // DW_FORM_implicit_const's value: signed, and as long as an unsigned one.
                    if form == 0x21 { _ = readUnsigned(base, count: count, &position) }
                }
                if entry == code { return position <= count ? (start, position) : nil }
            }
            return nil
        }
        guard let found else { return nil }
        var cursor = ByteCursor(bytes)
        cursor.offset = found.start
        var attributes: [Attribute] = []
        while cursor.offset < found.end {
            let name = cursor.unsigned()
            let form = cursor.unsigned()
            if name == 0 && form == 0 { break }
            let implicit = form == 0x21 ? UInt64(bitPattern: Int64(readSigned(bytes, &cursor.offset))) : 0
            attributes.append(Attribute(name: name, form: form, implicit: implicit))
        }
        return attributes
    }

    /// The span from the lowest address to the highest of the range list at `offset` of `bytes`
    /// (`.debug_ranges`, or `.debug_rnglists` when `isRangeList`), whose offsets are from `base`; an
    /// empty span for an empty list; `nil` for a list that runs out or uses `.debug_addr`.
    static func span(
        ofList offset: UInt64,
        base: UInt64,
        addressSize: Int,
        in bytes: [UInt8],
        isRangeList: Bool
    ) -> (start: UInt64, end: UInt64)? {
        guard offset < UInt64(bytes.count) else { return nil }
        var cursor = ByteCursor(bytes)
        cursor.offset = Int(offset)
        var base = base
        var start = UInt64.max
        var end: UInt64 = 0
        func add(_ low: UInt64, _ high: UInt64) {
            guard low < high else { return }
            start = min(start, low)
            end = max(end, high)
        }
        let largest: UInt64 = addressSize == 8 ? .max : UInt64(UInt32.max)
        while cursor.offset < bytes.count {
            if isRangeList {
                switch cursor.fixed(1) {
                case 0: return start <= end ? (start, end) : (0, 0)  // DW_RLE_end_of_list
                case 4:  // DW_RLE_offset_pair
                    let low = cursor.unsigned()
                    add(base &+ low, base &+ cursor.unsigned())
                case 5: base = cursor.fixed(addressSize)  // DW_RLE_base_address
                case 6:  // DW_RLE_start_end
                    let low = cursor.fixed(addressSize)
                    add(low, cursor.fixed(addressSize))
                case 7:  // DW_RLE_start_length
                    let low = cursor.fixed(addressSize)
                    add(low, low &+ cursor.unsigned())
                default: return nil  // DW_RLE_base_addressx, DW_RLE_startx_endx, DW_RLE_startx_length
                }
            } else if addressSize == 8 {
                // The usual list, of 64-bit pairs, read as such: it holds a pair per function, tens of
                // thousands in a test binary, which an unoptimized build reads byte by byte ten times slower.
                guard cursor.offset <= bytes.count - 16 else { return nil }
                let (low, high) = bytes.withUnsafeBytes { raw in
                    (
                        raw.loadUnaligned(fromByteOffset: cursor.offset, as: UInt64.self),
                        raw.loadUnaligned(fromByteOffset: cursor.offset + 8, as: UInt64.self)
                    )
                }
                cursor.offset += 16
                if low == 0 && high == 0 { return start <= end ? (start, end) : (0, 0) }
                if low == largest {
                    base = high  // a base address selection entry
                } else {
                    add(base &+ low, base &+ high)
                }
            } else {
                let low = cursor.fixed(addressSize)
                let high = cursor.fixed(addressSize)
                if low == 0 && high == 0 { return start <= end ? (start, end) : (0, 0) }
                if low == largest {
                    base = high  // a base address selection entry
                } else {
                    add(base &+ low, base &+ high)
                }
            }
        }
        return nil
    }
}

// MARK: - FormReader

/// Reads, or steps over, an attribute's value in any form of DWARF 2 to 5, as the unit's sizes say.
private struct FormReader {
    let offsetSize: Int
    let addressSize: Int
    let version: Int

    /// The value of an attribute of `form` at the cursor, moving past it: the number it holds, 0 for a
    /// string or a block; `nil` for a form this reader does not know, or a value that runs past `end`.
    func read(_ form: UInt64, implicit: UInt64, from cursor: inout ByteCursor, end: Int) -> UInt64? {
        var value: UInt64 = 0
        switch form {
        case 0x01: value = cursor.fixed(addressSize)  // DW_FORM_addr
        case 0x03: cursor.offset += Int(cursor.fixed(2))  // DW_FORM_block2
        case 0x04:  // DW_FORM_block4
            let size = cursor.fixed(4)
            guard size <= UInt64(end) else { return nil }
            cursor.offset += Int(size)
        case 0x05: value = cursor.fixed(2)  // DW_FORM_data2
        case 0x06: value = cursor.fixed(4)  // DW_FORM_data4
        case 0x07: value = cursor.fixed(8)  // DW_FORM_data8
        case 0x08: _ = cursor.string()  // DW_FORM_string
        case 0x09, 0x18:  // DW_FORM_block, DW_FORM_exprloc
            let size = cursor.unsigned()
            guard size <= UInt64(end) else { return nil }
            cursor.offset += Int(size)
        case 0x0A: cursor.offset += Int(cursor.fixed(1))  // DW_FORM_block1
        case 0x0B, 0x0C, 0x11: value = cursor.fixed(1)  // DW_FORM_data1, DW_FORM_flag, DW_FORM_ref1
        case 0x0D: value = UInt64(bitPattern: Int64(readSigned(cursor.bytes, &cursor.offset)))  // DW_FORM_sdata
        case 0x0F, 0x15, 0x1A, 0x1B, 0x22, 0x23: value = cursor.unsigned()  // udata, ref_udata, strx, addrx, …x
        case 0x0E, 0x17, 0x1D, 0x1F: value = cursor.fixed(offsetSize)  // strp, sec_offset, strp_sup, line_strp
        case 0x10: value = cursor.fixed(version <= 2 ? addressSize : offsetSize)  // DW_FORM_ref_addr
        case 0x12: value = cursor.fixed(2)  // DW_FORM_ref2
        case 0x13, 0x1C: value = cursor.fixed(4)  // DW_FORM_ref4, DW_FORM_ref_sup4
        case 0x14, 0x20, 0x24: value = cursor.fixed(8)  // DW_FORM_ref8, DW_FORM_ref_sig8, DW_FORM_ref_sup8
        case 0x16:  // DW_FORM_indirect: the form comes first
            let actual = cursor.unsigned()
            guard actual != 0x16 else { return nil }
            return read(actual, implicit: implicit, from: &cursor, end: end)
        case 0x19: value = 1  // DW_FORM_flag_present
        case 0x1E: cursor.offset += 16  // DW_FORM_data16
        case 0x21: value = implicit  // DW_FORM_implicit_const
        case 0x25, 0x29: value = cursor.fixed(1)  // DW_FORM_strx1, DW_FORM_addrx1
        case 0x26, 0x2A: value = cursor.fixed(2)  // DW_FORM_strx2, DW_FORM_addrx2
        case 0x27, 0x2B: value = cursor.fixed(3)  // DW_FORM_strx3, DW_FORM_addrx3
        case 0x28, 0x2C: value = cursor.fixed(4)  // DW_FORM_strx4, DW_FORM_addrx4
        case 0x1F01, 0x1F02: value = cursor.unsigned()  // DW_FORM_GNU_addr_index, DW_FORM_GNU_str_index
        case 0x1F20, 0x1F21: value = cursor.fixed(offsetSize)  // DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt
        default: return nil
        }
        return cursor.offset <= end ? value : nil
    }
}
