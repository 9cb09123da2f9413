// The line tables of an ELF image, read one compilation unit at a time, as addresses in its code are
// looked up: finding an unimplemented read's line in a debug build reads a few units, not the image's.

import Contextual
import Foundation

// MARK: - ImageLineTables

/// The source locations of an ELF image's code (64-bit little-endian), from its DWARF line tables: the
/// image's compilation units are indexed by the addresses of their code once per image and process
/// (``CompileUnitIndex``, from the first entry of each unit in `.debug_info`), and a unit's line program is
/// run the first time an address in its code is looked up (``LineTable``).
///
/// A test binary's line programs hold about 230,000 rows, which an unoptimized build runs in about
/// 150 ms; indexing the units and running one unit's program takes about 15 ms. An image whose units this
/// reader cannot index (see ``CompileUnitIndex``) has every line program run, on its first look-up.
///
/// The toolchain's symbolication, which an optimized build uses, runs every line program of the image for
/// each address it locates (about 20 ms for a test binary).
///
/// ```swift
/// let tables = ImageLineTables.shared(forImageAt: path)
/// let location = tables?.location(at: address - loadAddress)
/// ```
final class ImageLineTables: Sendable {
    /// What to add to an address relative to the image's load address to get the address the debug
    /// information uses: the link address of the loadable segment (PT_LOAD) that maps the start of the
    /// file, the part of the image its load address is the address of.
    let linkBase: UInt64
    /// The units by the addresses of their code; `nil` when the image's units could not be indexed.
    private let units: CompileUnitIndex?
    /// The sections the line tables are read from.
    private let sections: Sections
    /// The line tables read so far, by the offset of their unit's line program in `.debug_line`; the
    /// table of every unit at ``everyUnit``, when ``units`` is `nil`.
    private let tables = Locked<[Int: LineTable]>.make([:])
    /// The key of the table of every unit, in ``tables``.
    private static let everyUnit = -1

    /// The debug sections a line table is read from.
    private struct Sections: Sendable {
        /// `.debug_line`.
        var line: [UInt8]
        /// `.debug_line_str`, read only when a line program is of DWARF 5.
        var lineStrings: [UInt8]
        /// `.debug_str`, read only when a line program is of DWARF 5.
        var strings: [UInt8]
    }

    private init(linkBase: UInt64, sections: Sections, units: CompileUnitIndex?) {
        self.linkBase = linkBase
        self.sections = sections
        self.units = units
    }

    /// How many units' line programs have been read so far (all of them count as one when the units could
    /// not be indexed).
    var tablesRead: Int { tables.withLock { $0.count } }

    /// Whether the image's compilation units were indexed by the addresses of their code.
    var isIndexed: Bool { units != nil }

    /// The source location of `address`, an offset from the image's load address; `nil` if no line
    /// program covers it.
    ///
    /// Where the spans of several units hold the address, the row that starts closest before it, among
    /// the rows of their line programs that cover it, says where it is.
    ///
    /// - Complexity: O(u) in the image's compilation units, plus, the first time an address of a unit is
    ///   looked up, the run of that unit's line program.
    func location(at address: UInt64) -> LineTable.Location? {
        guard let units else { return table(of: Self.everyUnit).location(at: address) }
        var best: (start: UInt64, location: LineTable.Location)?
        for unit in units.lineProgramOffsets(at: address &+ linkBase) {
            if let found = table(of: unit).row(at: address), best.map({ found.start > $0.start }) ?? true {
                best = found
            }
        }
        return best?.location
    }

    /// The line table of the unit whose line program is at `offset` (of every unit at ``everyUnit``),
    /// read on first use.
    private func table(of offset: Int) -> LineTable {
        tables.withLock { tables in
            if let known = tables[offset] { return known }
            let table = LineTable(
                debugLine: sections.line,
                units: offset == Self.everyUnit ? nil : [offset],
                lineStrings: sections.lineStrings,
                strings: sections.strings,
                linkBase: linkBase
            )
            tables[offset] = table
            return table
        }
    }

    // MARK: - One per image

    /// The images read so far, by path (`nil` for an image without usable line tables).
    private static let images = Locked<[String: ImageLineTables?]>.make([:])

    /// The line tables of the image at `path`, its units indexed on first use (under a lock, so once per
    /// process); `nil` if it has none this reader understands.
    ///
    /// The image is read while holding the one lock of all images, so a look-up of any image waits while
    /// one is read: simple, and acceptable for a read that happens once per image and process, on the
    /// path of a failing test.
    static func shared(forImageAt path: String) -> ImageLineTables? {
        images.withLock { images in
            if let known = images[path] { return known }
            let tables = ImageLineTables(imageAt: path)
            images[path] = tables
            return tables
        }
    }

    // MARK: - Reading

    /// Reads the debug sections of the ELF image at `path` and indexes its units; `nil` if it has no line
    /// tables this reader understands (no `.debug_line`, a compressed one, a 32-bit or big-endian image, no
    /// loadable segment at the start of the file, a section that does not fit in the file).
    convenience init?(imageAt path: String) {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let fileSize = try? file.seekToEnd() else { return nil }
        let descriptor = file.fileDescriptor
        /// The `count` bytes at `offset`, read into the array directly (not through `Data`, which would
        /// zero them first and be copied after: a test binary's debug sections are megabytes).
        func read(_ offset: UInt64, _ count: UInt64) -> [UInt8]? {
            guard offset <= fileSize, count <= fileSize - offset, count <= UInt64(Int.max) else { return nil }
            var complete = true
            let bytes = [UInt8](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
                while initialized < buffer.count {
                    let read = pread(
                        descriptor,
                        buffer.baseAddress! + initialized,
                        buffer.count - initialized,
                        off_t(offset) + off_t(initialized)
                    )
                    guard read > 0 else { break }
                    initialized += read
                }
                complete = initialized == buffer.count
            }
            return complete ? bytes : nil
        }
        // The ELF header: 64-bit (class 2), little-endian (data 1).
        guard let header = read(0, 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2, header[5] == 1
        else { return nil }
        var cursor = ByteCursor(header)
        cursor.offset = 0x20
        let programHeaders = cursor.fixed(8)
        let sectionHeaders = cursor.fixed(8)
        cursor.offset = 0x36
        let programHeaderSize = Int(cursor.fixed(2))
        let programHeaderCount = Int(cursor.fixed(2))
        let sectionHeaderSize = Int(cursor.fixed(2))
        let sectionHeaderCount = Int(cursor.fixed(2))
        let namesIndex = Int(cursor.fixed(2))
        guard sectionHeaderSize >= 64, programHeaderSize >= 56, namesIndex < sectionHeaderCount,
            let sectionTable = read(sectionHeaders, UInt64(sectionHeaderSize * sectionHeaderCount)),
            let programs = read(programHeaders, UInt64(programHeaderSize * programHeaderCount))
        else { return nil }

        // The link address of the loadable segment (PT_LOAD) at file offset 0: the image's load address,
        // the start of its mapping of the file, is that segment's address. Without one, addresses cannot
        // be placed, and the image has no table.
        var linkBase: UInt64?
        for index in 0..<programHeaderCount {
            var program = ByteCursor(programs)
            program.offset = index * programHeaderSize
            guard program.fixed(4) == 1 else { continue }
            program.offset += 4
            let offset = program.fixed(8)
            let address = program.fixed(8)
            if offset == 0 { linkBase = address }
        }
        guard let linkBase else { return nil }

        // Section headers: name, type, flags, address, offset, size.
        typealias SectionHeader = (name: UInt64, type: UInt64, flags: UInt64, offset: UInt64, size: UInt64)
        func section(_ index: Int) -> SectionHeader {
            var entry = ByteCursor(sectionTable)
            entry.offset = index * sectionHeaderSize
            let name = entry.fixed(4)
            let type = entry.fixed(4)
            let flags = entry.fixed(8)
            entry.offset += 8
            return (name, type, flags, entry.fixed(8), entry.fixed(8))
        }
        // A section of type SHT_NOBITS (8) occupies no bytes of the file, whatever its size says.
        func contents(_ entry: SectionHeader) -> [UInt8]? {
            entry.type == 8 ? nil : read(entry.offset, entry.size)
        }
        guard let names = contents(section(namesIndex)) else { return nil }
        // The uncompressed sections wanted, by name, in one pass over the section headers.
        var headers: [String: SectionHeader] = [:]
        let wanted: Set = [
            ".debug_line", ".debug_line_str", ".debug_str", ".debug_info", ".debug_abbrev", ".debug_ranges",
            ".debug_rnglists", ".debug_addr",
        ]
        for index in 0..<sectionHeaderCount {
            let entry = section(index)
            var name = ByteCursor(names)
            name.offset = Int(entry.name)
            // SHF_COMPRESSED sections would need zlib or zstd.
            let sectionName = name.string()
            guard wanted.contains(sectionName), entry.flags & 0x800 == 0, headers[sectionName] == nil else { continue }
            headers[sectionName] = entry
        }
        func contents(of name: String) -> [UInt8]? { headers[name].flatMap(contents) }
        guard let line = contents(of: ".debug_line") else { return nil }
        // Only DWARF 5 line programs name their files in the string sections, which are megabytes in a
        // test binary: they are read only for an image that has one.
        let namesFilesInStrings = Self.hasVersion5Unit(line)
        var found: [String: [UInt8]] = [:]
        for name in [".debug_info", ".debug_abbrev", ".debug_ranges", ".debug_rnglists", ".debug_addr"] {
            found[name] = contents(of: name)
        }
        if namesFilesInStrings {
            found[".debug_line_str"] = contents(of: ".debug_line_str")
            found[".debug_str"] = contents(of: ".debug_str")
        }
        let units = found[".debug_info"].flatMap { info in
            CompileUnitIndex(
                info: info,
                abbreviations: found[".debug_abbrev"] ?? [],
                ranges: found[".debug_ranges"] ?? [],
                rangeLists: found[".debug_rnglists"] ?? [],
                addresses: found[".debug_addr"] ?? []
            )
        }
        self.init(
            linkBase: linkBase,
            sections: Sections(
                line: line,
                lineStrings: found[".debug_line_str"] ?? [],
                strings: found[".debug_str"] ?? []
            ),
            units: units
        )
    }

    /// Whether a unit of `debugLine`, the bytes of `.debug_line`, is of DWARF 5 or later: the headers alone
    /// are read, one unit after another.
    private static func hasVersion5Unit(_ debugLine: [UInt8]) -> Bool {
        var cursor = ByteCursor(debugLine)
        while cursor.offset < debugLine.count {
            var length = cursor.fixed(4)
            if length == 0xFFFF_FFFF { length = cursor.fixed(8) }
            guard length > 0, cursor.offset <= debugLine.count, length <= UInt64(debugLine.count - cursor.offset)
            else { return false }
            let next = cursor.offset + Int(length)
            if cursor.fixed(2) >= 5 { return true }
            cursor.offset = next
        }
        return false
    }
}
