// The functions of an ELF image, by address, from its symbol table: naming the frames of a stack without
// the toolchain's symbolication, which reads the symbol tables of the stack's images before it names one
// frame.

import Contextual

// MARK: - ImageSymbols

/// The function symbols of an ELF image (64-bit little-endian): its `.symtab`, the table of every
/// function the static linker saw, which names the frames of internal functions too (the dynamic
/// symbols name only those exported).
///
/// The image's file is mapped (``MappedImage``), not read: a test binary's symbol table and names are
/// megabytes, of which a look-up touches the table once and the names of the functions found. A look-up
/// goes once over the table for all the addresses it is given; what it finds is kept by address.
///
/// ```swift
/// let symbols = ImageSymbols.shared(forImageAt: path)
/// let names = symbols?.names(at: [address - loadAddress])
/// ```
final class ImageSymbols: Sendable {
    /// The mapped image, which the table is read from in place.
    private let image: MappedImage
    /// Where `.symtab` starts in the file, and how many entries (24 bytes each) it has.
    private let table: (offset: Int, count: Int)
    /// Where the table's names (its linked string table) are in the file.
    private let strings: (offset: Int, size: Int)
    /// The mangled names found so far, by address relative to the load address (`nil` where no function
    /// symbol covers it).
    private let found = Locked<[UInt64: String?]>.make([:])

    private init(image: MappedImage, table: (offset: Int, count: Int), strings: (offset: Int, size: Int)) {
        self.image = image
        self.table = table
        self.strings = strings
    }

    /// What to add to an address relative to the image's load address to get the address the symbols
    /// use: the link address of the loadable segment that maps the start of the file.
    var linkBase: UInt64 { image.linkBase }

    /// The mapped file.
    private var file: UnsafeRawPointer { image.file }

    // MARK: - Looking up

    /// The mangled name of the function whose code holds each of `addresses` (offsets from the image's
    /// load address), `nil` for one that no function symbol covers.
    ///
    /// - Complexity: O(n log a) in the table's entries n and the addresses a not looked up before; O(a)
    ///   when all were.
    func names(at addresses: [UInt64]) -> [UInt64: String?] {
        var result: [UInt64: String?] = [:]
        let wanted = found.withLock { found -> [UInt64] in
            var wanted: [UInt64] = []
            for address in addresses {
                if let known = found[address] { result[address] = known } else { wanted.append(address) }
            }
            return wanted
        }
        guard !wanted.isEmpty else { return result }
        let looked = lookUp(Array(Set(wanted.map { $0 &+ linkBase })).sorted())
        found.withLock { found in
            for address in wanted {
                let name = looked[address &+ linkBase] ?? nil
                found[address] = name
                result[address] = name
            }
        }
        return result
    }

    /// The mangled names of the function symbols that hold each of `sorted`, link addresses in ascending
    /// order: one pass over the table, each entry placed among the addresses by a binary search.
    private func lookUp(_ sorted: [UInt64]) -> [UInt64: String?] {
        guard let lowest = sorted.first, let highest = sorted.last else { return [:] }
        return sorted.withUnsafeBufferPointer { buffer in
            // Safe: `sorted` is not empty.
            lookUp(buffer.baseAddress.unsafelyUnwrapped, count: buffer.count, lowest: lowest, highest: highest)
        }
    }

    /// ``lookUp(_:)`` over the `count` sorted addresses at `sorted`, from `lowest` to `highest`: a
    /// pointer's subscript is inlined in an unoptimized build, an array's is a call.
    private func lookUp(
        _ sorted: UnsafePointer<UInt64>,
        count: Int,
        lowest: UInt64,
        highest: UInt64
    ) -> [UInt64: String?] {
        // Each entry: st_name (4 bytes), st_info (1), st_other (1), st_shndx (2), st_value (8), st_size (8).
        // The table is 8-byte aligned in the file (its section's alignment), and the mapping is
        // page-aligned: its 64-bit fields are read as such, each a pointer subscript (inlined even in an
        // unoptimized build, where this loop runs in a test).
        let words = (file + table.offset).assumingMemoryBound(to: UInt64.self)
        let bytes = (file + table.offset).assumingMemoryBound(to: UInt8.self)
        var best: [UInt64: (start: UInt64, name: Int)] = [:]
        // A `while` loop: a range's iterator is a call per entry in an unoptimized build.
        var index = -1
        while index &+ 1 < table.count {
            index &+= 1
            let start = words[index &* 3 &+ 1]
            guard start <= highest else { continue }
            let size = words[index &* 3 &+ 2]
            let end = start &+ size
            // STT_FUNC (2) in the low bits of st_info, named (st_name not 0), defined in a section
            // (st_shndx not 0).
            guard end > lowest, size > 0, bytes[index &* 24 &+ 4] & 0xF == 2,
                UInt32(truncatingIfNeeded: words[index &* 3]) != 0,
                bytes[index &* 24 &+ 6] | bytes[index &* 24 &+ 7] != 0
            else { continue }
            // The first wanted address at or after the function's start.
            var low = 0
            var high = count
            while low < high {
                let middle = (low &+ high) / 2
                if sorted[middle] < start { low = middle &+ 1 } else { high = middle }
            }
            var position = low
            while position < count, sorted[position] < end {
                // Of symbols that overlap (an alias), the one that starts last is the closest.
                let address = sorted[position]
                if best[address].map({ start > $0.start }) ?? true {
                    best[address] = (start, Int(UInt32(truncatingIfNeeded: words[index &* 3])))
                }
                position &+= 1
            }
        }
        var names: [UInt64: String?] = [:]
        for position in 0..<count {
            let address = sorted[position]
            names[address] = best[address].flatMap { name(at: $0.name) }
        }
        return names
    }

    /// The NUL-terminated name at `offset` of the string table; `nil` if it does not end within it.
    private func name(at offset: Int) -> String? {
        guard offset < strings.size else { return nil }
        let start = (file + strings.offset + offset).assumingMemoryBound(to: UInt8.self)
        let limit = strings.size - offset
        var length = 0
        while length < limit, start[length] != 0 { length &+= 1 }
        guard length < limit else { return nil }
        return String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self)
    }

    // MARK: - One per image

    /// The images read so far (`nil` for an image without a symbol table this reader understands).
    private static let images = ImageCache<ImageSymbols>()

    /// The symbols of the image at `path`, found on first use (once per process, see ``ImageCache``);
    /// `nil` if it has no symbol table this reader understands.
    static func shared(forImageAt path: String) -> ImageSymbols? {
        images.value(forImageAt: path, reading: ImageSymbols.init(imageAt:))
    }

    // MARK: - Reading

    /// The symbols of the ELF image at `path`; `nil` if it has no symbol table (a stripped image), is no
    /// image ``MappedImage`` understands, or has a table that does not fit in the file.
    convenience init?(imageAt path: String) {
        guard let image = MappedImage.shared(forImageAt: path),
            let table = image.sections.first(where: { $0.type == 2 }),  // SHT_SYMTAB
            table.isInFile, table.entrySize == 24, table.offset % 8 == 0, table.link < image.sections.count,
            image.sections[table.link].type == 3, image.sections[table.link].isInFile  // SHT_STRTAB
        else { return nil }
        let names = image.sections[table.link]
        self.init(image: image, table: (table.offset, table.size / 24), strings: (names.offset, names.size))
    }
}
