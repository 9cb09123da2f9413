// The compilation units that define a function, by its mangled name, from an image's DWARF 5 name
// indexes: the unit of a frame's function without indexing every unit of a test binary.

// MARK: - DebugNames

/// The name indexes of an image's `.debug_names` section (DWARF 5; one per object file the linker put
/// together, hundreds in a test binary), read in place from the mapped file: which units define a name,
/// found through each index's hash table, its strings compared in `.debug_str`.
///
/// A look-up reads a few words of each index: its header, one bucket, the hashes of that bucket, and the
/// strings and entries of the names whose hash matches. An index this reader cannot read (another version,
/// no hash table, a form it does not know, a size that does not fit) makes the look-up `nil`, and the
/// caller then looks through every unit.
///
/// ```swift
/// let names = DebugNames(image: image)
/// let units = names?.units(defining: "$s4main3runyyF")  // offsets in .debug_info
/// ```
struct DebugNames: @unchecked Sendable {
    // @unchecked Sendable: it reads bytes that never change nor go away while it is used: a mapping of an
    // image (``MappedImage``), or bytes its tests keep alive around its use.

    /// The bytes of `.debug_names`.
    private let names: UnsafeRawBufferPointer
    /// The bytes of `.debug_str`, where the names are.
    private let strings: UnsafeRawBufferPointer

    /// The name indexes of `image`; `nil` if it has no `.debug_names` or `.debug_str` section.
    init?(image: MappedImage) {
        guard let names = image.section(named: ".debug_names"), let strings = image.section(named: ".debug_str")
        else { return nil }
        self.init(names: image.bytes(of: names), strings: image.bytes(of: strings))
    }

    /// The name indexes in `names`, the bytes of a `.debug_names` section, with `strings`, those of
    /// `.debug_str`: both must stay valid while it is used.
    init(names: UnsafeRawBufferPointer, strings: UnsafeRawBufferPointer) {
        self.names = names
        self.strings = strings
    }

    // MARK: - Looking up

    /// The offsets in `.debug_info` of the units that define `name` (a function's mangled name), in the
    /// order their indexes list them; empty if no index has the name, `nil` if an index cannot be read.
    ///
    /// - Complexity: O(i + m) in the indexes i and the names m that share the name's hash in its bucket.
    func units(defining name: String) -> [Int]? {
        let wanted = Array(name.utf8)
        let hash = Self.hash(wanted)
        guard let base = names.baseAddress, !names.isEmpty else { return [] }
        var units: [Int] = []
        var next = 0
        while next < names.count {
            guard let index = Index(at: next, in: base, count: names.count) else { return nil }
            next = index.end
            guard let found = index.units(defining: wanted, hash: hash, strings: strings) else { return nil }
            units += found
        }
        return units
    }

    /// The case-folded DJB hash of a name, as DWARF 5 name indexes hash them (ASCII letters lowercased).
    static func hash(_ bytes: [UInt8]) -> UInt32 {
        var hash: UInt32 = 5381
        for byte in bytes {
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            hash = hash &* 33 &+ UInt32(folded)
        }
        return hash
    }
}

// MARK: - One index

extension DebugNames {
    /// One name index: where its tables are in `.debug_names`.
    fileprivate struct Index {
        /// The start of `.debug_names`.
        let base: UnsafeRawPointer
        /// Just past the end of this index.
        let end: Int
        /// 4 in a 32-bit DWARF index, 8 in a 64-bit one.
        let offsetSize: Int
        /// How many compilation units it lists.
        let unitCount: Int
        /// How many buckets its hash table has (at least one).
        let bucketCount: Int
        /// How many names it holds.
        let nameCount: Int
        /// Where the offsets of its units in `.debug_info` start.
        let unitOffsets: Int
        /// Where its buckets start: each the 1-based index of the bucket's first name, or 0.
        let buckets: Int
        /// Where the hashes of its names start, in the names' order.
        let hashes: Int
        /// Where the offsets of its names in `.debug_str` start.
        let stringOffsets: Int
        /// Where the offsets of its names' entries, from the entry pool's start, start.
        let entryOffsets: Int
        /// Where its abbreviation table starts.
        let abbreviations: Int
        /// Where its entry pool starts.
        let entries: Int

        /// The index at `offset` of the `count` bytes at `base`; `nil` if it is not a DWARF 5 index with a
        /// hash table whose tables fit in it.
        init?(at offset: Int, in base: UnsafeRawPointer, count: Int) {
            self.base = base
            func word(_ at: Int, _ size: Int) -> Int? {
                guard at >= 0, size <= count, at <= count - size else { return nil }
                return Int(exactly: littleEndian(base + at, size))
            }
            var position = offset
            guard var length = word(position, 4) else { return nil }
            position += 4
            var offsetSize = 4
            if length == 0xFFFF_FFFF {
                guard let long = word(position, 8) else { return nil }
                length = long
                position += 8
                offsetSize = 8
            }
            guard length <= count - position, word(position, 2) == 5 else { return nil }
            end = position + length
            position += 4  // the version, and padding
            guard let units = word(position, 4), let localTypeUnits = word(position + 4, 4),
                let foreignTypeUnits = word(position + 8, 4), let buckets = word(position + 12, 4),
                let names = word(position + 16, 4), let abbreviationsSize = word(position + 20, 4),
                let augmentationSize = word(position + 24, 4), buckets > 0
            else { return nil }
            self.offsetSize = offsetSize
            unitCount = units
            bucketCount = buckets
            nameCount = names
            // Each count is at most 2^32 - 1: the sums stay far from overflowing.
            unitOffsets = position + 28 + augmentationSize
            self.buckets = unitOffsets + (units + localTypeUnits) * offsetSize + foreignTypeUnits * 8
            hashes = self.buckets + buckets * 4
            stringOffsets = hashes + names * 4
            entryOffsets = stringOffsets + names * offsetSize
            abbreviations = entryOffsets + names * offsetSize
            entries = abbreviations + abbreviationsSize
            guard entries <= end else { return nil }
        }

        /// The `size`-byte little-endian word at `offset` of `.debug_names`, within this index (0 past it).
        private func word(_ offset: Int, _ size: Int) -> Int {
            guard offset >= 0, offset <= end - size else { return 0 }
            // A 64-bit offset past Int's range is no offset in the section: -1, which every use refuses.
            return Int(exactly: littleEndian(base + offset, size)) ?? -1
        }

        /// The units that define `name`, whose hash is `hash`, in this index; `nil` if its entries cannot
        /// be read.
        func units(defining name: [UInt8], hash: UInt32, strings: UnsafeRawBufferPointer) -> [Int]? {
            let bucket = Int(hash % UInt32(bucketCount))
            // The bucket holds the 1-based index of its first name, whose hashes follow in order.
            var position = word(buckets + bucket * 4, 4)
            guard position > 0 else { return [] }
            var units: [Int] = []
            while position <= nameCount {
                let found = UInt32(truncatingIfNeeded: word(hashes + (position - 1) * 4, 4))
                guard Int(found % UInt32(bucketCount)) == bucket else { break }
                if found == hash,
                    Self.matches(name, at: word(stringOffsets + (position - 1) * offsetSize, offsetSize), in: strings)
                {
                    guard
                        let defining = self.units(
                            ofEntriesAt: entries &+ word(entryOffsets + (position - 1) * offsetSize, offsetSize)
                        )
                    else { return nil }
                    units += defining
                }
                position += 1
            }
            return units
        }

        /// Whether the NUL-terminated string at `offset` of `strings` is `name`.
        private static func matches(_ name: [UInt8], at offset: Int, in strings: UnsafeRawBufferPointer) -> Bool {
            guard offset >= 0, name.count < strings.count, offset < strings.count - name.count,
                let start = strings.baseAddress?.assumingMemoryBound(to: UInt8.self)
            else { return false }
            var index = 0
            while index < name.count {
                if start[offset &+ index] != name[index] { return false }
                index &+= 1
            }
            return start[offset &+ name.count] == 0
        }

        /// The units of the entries of one name, at `offset` of `.debug_names` (each an abbreviation's
        /// code and its attributes, until a code of 0); `nil` if one cannot be read.
        private func units(ofEntriesAt offset: Int) -> [Int]? {
            var units: [Int] = []
            // Within the entry pool; the pool offset may be anything in a malformed index.
            guard offset >= entries, offset < end else { return nil }
            var position = offset
            while true {
                guard position < end else { return nil }
                let code = unsigned(&position)
                if code == 0 { return units }
                guard let attributes = attributes(of: code) else { return nil }
                var unit: Int?
                var isTypeUnit = false
                for (name, form) in attributes {
                    guard let value = value(form, &position) else { return nil }
                    if name == 1 { unit = value }  // DW_IDX_compile_unit
                    if name == 2 { isTypeUnit = true }  // DW_IDX_type_unit
                }
                // An index of one unit may leave it unnamed.
                if unit == nil, !isTypeUnit, unitCount == 1 { unit = 0 }
                if let unit {
                    guard unit >= 0, unit < unitCount else { return nil }
                    units.append(word(unitOffsets + unit * offsetSize, offsetSize))
                }
            }
        }

        /// The attributes (index attribute, form) of the abbreviation `code`; `nil` if the table has none.
        private func attributes(of code: Int) -> [(name: Int, form: Int)]? {
            var position = abbreviations
            while position < entries {
                let found = unsigned(&position)
                guard found != 0 else { return nil }
                _ = unsigned(&position)  // the tag
                var attributes: [(name: Int, form: Int)] = []
                while position < entries {
                    let name = unsigned(&position)
                    let form = unsigned(&position)
                    if name == 0 && form == 0 { break }
                    attributes.append((name, form))
                }
                if found == code { return attributes }
            }
            return nil
        }

        /// The value of an entry's attribute of `form` at `position`, moving past it; `nil` for a form
        /// this reader does not know.
        private func value(_ form: Int, _ position: inout Int) -> Int? {
            let size: Int
            switch form {
            case 0x19: return 1  // DW_FORM_flag_present
            case 0x0F, 0x15: return unsigned(&position)  // DW_FORM_udata, DW_FORM_ref_udata
            case 0x0B, 0x0C, 0x11: size = 1  // data1, flag, ref1
            case 0x05, 0x12: size = 2  // data2, ref2
            case 0x06, 0x13: size = 4  // data4, ref4
            case 0x07, 0x14, 0x20: size = 8  // data8, ref8, ref_sig8
            default: return nil
            }
            defer { position += size }
            return word(position, size)
        }

        /// The unsigned LEB128 number at `position`, moving past it (at most 63 bits are kept).
        private func unsigned(_ position: inout Int) -> Int {
            var value = 0
            var shift = 0
            while position >= 0, position < end {
                let byte = Int(base.load(fromByteOffset: position, as: UInt8.self))
                position += 1
                if shift < 63 { value |= (byte & 0x7F) << shift }
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            return value
        }
    }
}

/// The little-endian unsigned integer of `size` bytes (at most 8) at `bytes`.
private func littleEndian(_ bytes: UnsafeRawPointer, _ size: Int) -> UInt64 {
    let bytes = bytes.assumingMemoryBound(to: UInt8.self)
    var value: UInt64 = 0
    var index = size - 1
    while index >= 0 {
        value = value << 8 | UInt64(bytes[index])
        index -= 1
    }
    return value
}
