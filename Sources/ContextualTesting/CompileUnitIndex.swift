// Which compilation unit of an ELF image holds the code at an address, from the first entry of each unit
// in `.debug_info`: the unit whose line program to run for that address.

// MARK: - CompileUnitIndex

/// The compilation units of an image's `.debug_info` (DWARF 2 to 5), each with the span of addresses of
/// its code and the offset of its line program in `.debug_line`.
///
/// Each unit's first entry (`DW_TAG_compile_unit`) is read with its abbreviation: its `DW_AT_stmt_list`
/// and either `DW_AT_low_pc` and `DW_AT_high_pc`, or `DW_AT_ranges` (a list in `.debug_ranges`, or in
/// `.debug_rnglists` for DWARF 5), of which the span from the lowest address to the highest is kept.
/// Addresses and lists that DWARF 5 gives by index are found through the unit's `DW_AT_addr_base` (in
/// `.debug_addr`) and `DW_AT_rnglists_base`. A compiler that places each function in a section of its own
/// (Swift, clang) still gives a unit's functions contiguous addresses in the linked image, one object
/// file's sections after another's, so spans seldom overlap; where they do, every unit whose span holds an
/// address is returned, and the caller looks in each.
///
/// A unit without code or without a line program is left out. An entry this reader cannot read (a form
/// it does not know or that an attribute cannot have, an index without its base, a split unit's GNU
/// forms, a size that does not fit) makes the whole index `nil`: the caller then runs every line program,
/// rather than miss a unit or pick a wrong one.
///
/// ```swift
/// let index = CompileUnitIndex(info: info, abbreviations: abbrev, ranges: ranges, rangeLists: [])
/// let programs = index?.lineProgramOffsets(at: address)
/// ```
struct CompileUnitIndex: Sendable {
    /// A unit: the span of its code's addresses, and its line program's offset.
    struct Unit: Sendable {
        /// The lowest address of its code.
        var start: UInt64
        /// Just past the highest address of its code.
        var end: UInt64
        /// The offset of its line program in `.debug_line`.
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
    /// (`abbreviations`), `.debug_ranges` (`ranges`), `.debug_rnglists` (`rangeLists`) and `.debug_addr`
    /// (`addresses`); `nil` if an entry cannot be read.
    ///
    /// - Complexity: O(n) in the units' first entries and their range lists, plus, for each unit, the
    ///   entries of its abbreviation table before its own (a C module's unit shares the table of the
    ///   Swift unit before it, whose entries come first).
    init?(
        info: [UInt8],
        abbreviations: [UInt8],
        ranges: [UInt8],
        rangeLists: [UInt8],
        addresses: [UInt8] = []
    ) {
        var units: [Unit] = []
        let sections = Sections(ranges: ranges, rangeLists: rangeLists, addresses: addresses)
        var next = 0
        while next < info.count {
            guard let read = Self.firstEntry(ofUnitAt: next, in: info, abbreviations: abbreviations) else {
                return nil
            }
            next = read.next
            guard let first = read.first else { continue }
            guard
                let unit = first.entry.unit(
                    version: first.version,
                    addressSize: first.addressSize,
                    offsetSize: first.offsetSize,
                    in: sections
                )
            else { return nil }
            if let unit { units.append(unit) }
        }
        units.sort { $0.start < $1.start }
        self.units = units
    }

    /// The offset in `.debug_line` of the line program of the unit at `offset` of `info` (`.debug_info`),
    /// with `abbreviations` (`.debug_abbrev`): the unit that `.debug_names` says defines a function; `nil`
    /// if its first entry cannot be read or has no line program.
    static func lineProgram(ofUnitAt offset: Int, in info: [UInt8], abbreviations: [UInt8]) -> Int? {
        guard offset >= 0, let read = firstEntry(ofUnitAt: offset, in: info, abbreviations: abbreviations),
            let lineProgram = read.first?.entry.lineProgram
        else { return nil }
        return Int(exactly: lineProgram)
    }

    /// The unit at `offset` of `info` (`.debug_info`): where the next unit starts, and its first entry's
    /// attributes that place its code, with its sizes (`nil` for a unit without code: a type unit, or one
    /// without entries); `nil` if it cannot be read.
    fileprivate static func firstEntry(
        ofUnitAt offset: Int,
        in info: [UInt8],
        abbreviations: [UInt8]
    ) -> (next: Int, first: (entry: Entry, version: Int, addressSize: Int, offsetSize: Int)?)? {
        var cursor = ByteCursor(info)
        cursor.offset = offset
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
            default: return (end, nil)  // type units hold no code
            }
        default:
            return nil
        }
        guard addressSize == 4 || addressSize == 8 else { return nil }
        let code = cursor.unsigned()
        guard code != 0 else { return (end, nil) }
        guard let attributes = abbreviation(code, at: abbreviationsOffset, in: abbreviations) else { return nil }
        let forms = FormReader(offsetSize: offsetSize, addressSize: addressSize, version: Int(version))
        var entry = Entry()
        for attribute in attributes {
            guard let read = forms.read(attribute.form, implicit: attribute.implicit, from: &cursor, end: end)
            else { return nil }
            switch attribute.name {
            case 0x10, 0x11, 0x12, 0x55, 0x73, 0x74:
                guard entry.record(attribute.name, read.value, form: read.form) else { return nil }
            default: break
            }
        }
        guard cursor.offset <= end else { return nil }
        return (end, (entry, Int(version), addressSize, offsetSize))
    }

    /// An attribute of an abbreviation: its name, its form, and the value of a `DW_FORM_implicit_const`.
    struct Attribute {
        /// The attribute (`DW_AT_…`).
        var name: UInt64
        /// The form of its value (`DW_FORM_…`).
        var form: UInt64
        /// The value of a `DW_FORM_implicit_const`, which the abbreviation holds; 0 for other forms.
        var implicit: UInt64
    }

    /// The attributes of the abbreviation `code` in the table at `offset` of `.debug_abbrev`; `nil` if the
    /// table has no such abbreviation, or runs out before the end of its attributes.
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
                var terminated = false
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
                    if name == 0 && form == 0 {
                        terminated = true
                        break
                    }
                    // DW_FORM_implicit_const's value: signed, and as long as an unsigned one.
                    if form == 0x21 { _ = readUnsigned(base, count: count, &position) }
                }
                guard terminated else { return nil }
                if entry == code { return (start, position) }
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
}

// MARK: - Entry

extension CompileUnitIndex {
    /// The sections a unit's addresses and lists may be in.
    fileprivate struct Sections {
        /// `.debug_ranges` (DWARF 2 to 4).
        var ranges: [UInt8]
        /// `.debug_rnglists` (DWARF 5).
        var rangeLists: [UInt8]
        /// `.debug_addr` (DWARF 5).
        var addresses: [UInt8]
    }

    /// The attributes of a unit's first entry that place its code, as read, before they are resolved
    /// (DWARF 5 gives the bases of its indices in any order among them).
    fileprivate struct Entry {
        /// `DW_AT_stmt_list`: the offset of the unit's line program.
        var lineProgram: UInt64?
        /// `DW_AT_low_pc`: an address, or an index into `.debug_addr`.
        var low: (value: UInt64, isIndex: Bool)?
        /// `DW_AT_high_pc`: an address, an index into `.debug_addr`, or a size from the low address.
        var high: (value: UInt64, kind: HighKind)?
        /// `DW_AT_ranges`: a list's offset, or an index into the unit's list offsets.
        var ranges: (value: UInt64, isIndex: Bool)?
        /// `DW_AT_addr_base`: where the unit's addresses start in `.debug_addr`.
        var addressBase: UInt64?
        /// `DW_AT_rnglists_base`: where the unit's list offsets start in `.debug_rnglists`.
        var rangeListsBase: UInt64?

        /// What a `DW_AT_high_pc` value is.
        enum HighKind { case address, index, size }

        /// Records the attribute `name`, read in `form`, when it places the unit's code; false for a form
        /// the attribute cannot have (the entry is then not read).
        mutating func record(_ name: UInt64, _ value: UInt64, form: UInt64) -> Bool {
            // Switches, not array literals: an unoptimized build would make arrays for each attribute.
            let isOffset: Bool
            switch form {
            case 0x06, 0x07, 0x17: isOffset = true  // data4, data8, sec_offset
            default: isOffset = false
            }
            let isIndex: Bool
            switch form {
            case 0x1B, 0x29, 0x2A, 0x2B, 0x2C: isIndex = true  // addrx, addrx1 to addrx4
            default: isIndex = false
            }
            switch name {
            case 0x10:  // DW_AT_stmt_list
                guard isOffset else { return false }
                lineProgram = value
            case 0x11:  // DW_AT_low_pc
                guard form == 0x01 || isIndex else { return false }
                low = (value, isIndex)
            case 0x12:  // DW_AT_high_pc
                if form == 0x01 {
                    high = (value, .address)
                } else if isIndex {
                    high = (value, .index)
                } else {
                    switch form {
                    case 0x05, 0x06, 0x07, 0x0B, 0x0F: high = (value, .size)  // data2, data4, data8, data1, udata
                    default: return false
                    }
                }
            case 0x55:  // DW_AT_ranges
                guard isOffset || form == 0x23 else { return false }  // or DW_FORM_rnglistx
                ranges = (value, form == 0x23)
            case 0x73:  // DW_AT_addr_base
                guard isOffset else { return false }
                addressBase = value
            case 0x74:  // DW_AT_rnglists_base
                guard isOffset else { return false }
                rangeListsBase = value
            default:
                break
            }
            return true
        }

        /// The unit these attributes place: `.some(nil)` for one without code or a line program; `nil`
        /// for an address, list or index that cannot be found.
        func unit(version: Int, addressSize: Int, offsetSize: Int, in sections: Sections) -> Unit?? {
            guard let lineProgram, lineProgram <= UInt64(Int.max) else { return .some(nil) }
            /// The address at `index` of the unit's part of `.debug_addr`.
            func address(at index: UInt64) -> UInt64? {
                guard let addressBase else { return nil }
                return Self.fixed(addressSize, at: addressBase, index, in: sections.addresses)
            }
            var low: UInt64?
            if let entry = self.low {
                let value = entry.isIndex ? address(at: entry.value) : entry.value
                guard let value else { return nil }
                low = value
            }
            let span: (start: UInt64, end: UInt64)
            if let ranges {
                var offset = ranges.value
                if ranges.isIndex {
                    // An offset, from the list offsets' start, in the table that DW_AT_rnglists_base locates.
                    guard let base = rangeListsBase,
                        let relative = Self.fixed(offsetSize, at: base, ranges.value, in: sections.rangeLists)
                    else { return nil }
                    offset = base &+ relative
                }
                guard
                    let found = CompileUnitIndex.span(
                        ofList: offset,
                        base: low ?? 0,
                        addressSize: addressSize,
                        in: version >= 5 ? sections.rangeLists : sections.ranges,
                        isRangeList: version >= 5,
                        address: address
                    )
                else { return nil }
                span = found
            } else if let low, let high {
                switch high.kind {
                case .address: span = (low, high.value)
                case .size: span = (low, low &+ high.value)
                case .index:
                    guard let value = address(at: high.value) else { return nil }
                    span = (low, value)
                }
            } else {
                return .some(nil)
            }
            guard span.start < span.end else { return .some(nil) }
            return .some(Unit(start: span.start, end: span.end, lineProgram: Int(lineProgram)))
        }

        /// The `size`-byte value at index `index` of the table at `base` in `bytes`; `nil` outside.
        static func fixed(_ size: Int, at base: UInt64, _ index: UInt64, in bytes: [UInt8]) -> UInt64? {
            let (scaled, overflow) = index.multipliedReportingOverflow(by: UInt64(size))
            let (offset, overflowAgain) = base.addingReportingOverflow(scaled)
            guard !overflow, !overflowAgain, offset < UInt64(bytes.count), UInt64(size) <= UInt64(bytes.count) - offset
            else { return nil }
            var cursor = ByteCursor(bytes)
            cursor.offset = Int(offset)
            return cursor.fixed(size)
        }
    }

    /// The span from the lowest address to the highest of the range list at `offset` of `bytes`
    /// (`.debug_ranges`, or `.debug_rnglists` when `isRangeList`), whose offsets are from `base`, with the
    /// unit's indexed addresses from `address`; an empty span for an empty list; `nil` for a list that runs
    /// out or an address that cannot be found.
    fileprivate static func span(
        ofList offset: UInt64,
        base: UInt64,
        addressSize: Int,
        in bytes: [UInt8],
        isRangeList: Bool,
        address: (UInt64) -> UInt64?
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
                case 1:  // DW_RLE_base_addressx
                    guard let found = address(cursor.unsigned()) else { return nil }
                    base = found
                case 2:  // DW_RLE_startx_endx
                    let low = address(cursor.unsigned())
                    guard let low, let high = address(cursor.unsigned()) else { return nil }
                    add(low, high)
                case 3:  // DW_RLE_startx_length
                    guard let low = address(cursor.unsigned()) else { return nil }
                    add(low, low &+ cursor.unsigned())
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
                default: return nil
                }
            } else if addressSize == 8 {
                // The usual list, of 64-bit pairs, read as such: it holds a pair per function, tens of
                // thousands in a test binary, which an unoptimized build reads byte by byte ten times slower.
                guard cursor.offset <= bytes.count - 16 else { return nil }
                let (low, high) = bytes.withUnsafeBytes { raw in
                    (
                        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor.offset, as: UInt64.self)),
                        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: cursor.offset + 8, as: UInt64.self))
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

extension CompileUnitIndex {
    /// Reads, or steps over, an attribute's value in any form of DWARF 2 to 5, as the unit's sizes say.
    fileprivate struct FormReader {
        /// 4 in a 32-bit DWARF unit, 8 in a 64-bit one.
        let offsetSize: Int
        /// The size of an address in the unit.
        let addressSize: Int
        /// The unit's DWARF version.
        let version: Int

        /// The value of an attribute of `form` at the cursor, moving past it, and its form (the one it
        /// names, for `DW_FORM_indirect`): the number it holds, 0 for a string or a block; `nil` for a form
        /// this reader does not know, or a value that runs past `end`.
        func read(
            _ form: UInt64,
            implicit: UInt64,
            from cursor: inout ByteCursor,
            end: Int
        ) -> (value: UInt64, form: UInt64)? {
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
            case 0x0D: value = UInt64(bitPattern: Int64(readSigned(cursor.bytes, &cursor.offset)))  // sdata
            case 0x0F, 0x15, 0x1A, 0x1B, 0x22, 0x23: value = cursor.unsigned()  // udata, ref_udata, strx, …x
            case 0x0E, 0x17, 0x1D, 0x1F: value = cursor.fixed(offsetSize)  // strp, sec_offset, …strp
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
            return cursor.offset <= end ? (value, form) : nil
        }
    }
}
