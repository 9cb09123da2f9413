// The line tables of an ELF image, read one compilation unit at a time, as addresses in its code are
// looked up: finding an unimplemented read's line in a debug build reads a few units, not the image's.

import Contextual

// MARK: - ImageLineTables

/// The source locations of an ELF image's code (64-bit little-endian), from its DWARF line tables: the
/// unit of an address is found by its function's mangled name in the image's name indexes
/// (``DebugNames``), or else through an index of the image's compilation units by the addresses of their
/// code, made on first use (``CompileUnitIndex``, from the first entry of each unit in `.debug_info`); a
/// unit's line program is run the first time an address in its code is looked up (``LineTable``). The
/// image is mapped (``MappedImage``): a look-up copies the units it reads, and, once per image, the
/// sections they refer to (the abbreviations; the string sections, for a DWARF 5 line program), not
/// every debug section.
///
/// A test binary's line programs hold about 230,000 rows, which an unoptimized build runs in about
/// 150 ms; finding a function's unit by its name and running that unit's program takes about 2 ms,
/// indexing every unit about 10 ms more. An image whose units this reader cannot index (see
/// ``CompileUnitIndex``) has every line program run, when an address is not found by name.
///
/// The toolchain's symbolication, which an optimized build uses, runs every line program of the image for
/// each address it locates (about 20 ms for a test binary).
///
/// ```swift
/// let tables = ImageLineTables.shared(forImageAt: path)
/// let location = tables?.location(at: address - loadAddress, function: mangledName)
/// ```
final class ImageLineTables: Sendable {
    /// What to add to an address relative to the image's load address to get the address the debug
    /// information uses: the link address of the loadable segment (PT_LOAD) that maps the start of the
    /// file, the part of the image its load address is the address of.
    let linkBase: UInt64
    /// The units by the addresses of their code, indexed on first use (where a function's units are not
    /// found by its name); `nil` inside when the image's units could not be indexed.
    private let index = Locked<CompileUnitIndex??>.make(nil)
    /// The mapped image, whose sections are copied from as look-ups need them.
    private let image: MappedImage
    /// The image's sections that line tables and units are read from, by name (those it has, in the file
    /// and uncompressed).
    private let sections: [String: MappedImage.Section]
    /// The image's name indexes (`.debug_names`), which give the units of a function by its name; `nil`
    /// when it has none.
    private let names: DebugNames?
    /// The line tables read so far, by the offset of their unit's line program in `.debug_line`; the
    /// table of every unit at ``everyUnit``, when ``units`` is `nil`.
    private let tables = Locked<[Int: LineTable]>.make([:])
    /// The key of the table of every unit, in ``tables``.
    private static let everyUnit = -1

    private init(image: MappedImage, sections: [String: MappedImage.Section]) {
        self.linkBase = image.linkBase
        self.image = image
        self.sections = sections
        self.names = DebugNames(image: image)
    }

    /// The copies of whole sections that look-ups read again and again (the abbreviations, the string
    /// sections), by name: each is copied once.
    private let copies = Locked<[String: [UInt8]]>.make([:])

    /// A copy of the section named `name`'s bytes, made on first use and kept; empty if the image has
    /// none.
    private func bytes(of name: String) -> [UInt8] {
        copies.withLock { copies in
            if let known = copies[name] { return known }
            let bytes = sections[name].map { Array(image.bytes(of: $0)) } ?? []
            copies[name] = bytes
            return bytes
        }
    }

    /// A copy of the unit at `offset` of the section named `name` (`.debug_info` or `.debug_line`, whose
    /// units start with their length), so that reading one unit copies no more; `nil` if it does not fit.
    private func unit(at offset: Int, of name: String) -> [UInt8]? {
        guard let section = sections[name], offset >= 0, offset <= section.size - 4 else { return nil }
        let bytes = image.bytes(of: section)
        var cursor = ByteCursor(Array(bytes[offset..<offset + 4]))
        var length = cursor.fixed(4)
        var header = 4
        if length == 0xFFFF_FFFF {
            guard offset <= section.size - 12 else { return nil }
            cursor = ByteCursor(Array(bytes[offset + 4..<offset + 12]))
            length = cursor.fixed(8)
            header = 12
        }
        guard length <= UInt64(section.size - offset - header) else { return nil }
        return Array(bytes[offset..<offset + header + Int(length)])
    }

    /// How many units' line programs have been read so far (all of them count as one when the units could
    /// not be indexed).
    var tablesRead: Int { tables.withLock { $0.count } }

    /// Whether the image's compilation units can be indexed by the addresses of their code (indexing
    /// them, if they were not yet).
    var isIndexed: Bool { units != nil }

    /// Whether the image's compilation units were indexed so far (whether or not they could be).
    var hasTriedIndexing: Bool { index.withLock { $0 != nil } }

    /// The image's units by the addresses of their code, indexed on first use (under a lock, so once);
    /// `nil` if they cannot be.
    private var units: CompileUnitIndex? {
        index.withLock { index in
            if let index { return index }
            // Copies kept only while the index is made: it keeps the units' spans alone.
            func copy(_ name: String) -> [UInt8] { sections[name].map { Array(image.bytes(of: $0)) } ?? [] }
            let units =
                sections[".debug_info"] == nil
                ? nil
                : CompileUnitIndex(
                    info: copy(".debug_info"),
                    abbreviations: bytes(of: ".debug_abbrev"),
                    ranges: copy(".debug_ranges"),
                    rangeLists: copy(".debug_rnglists"),
                    addresses: copy(".debug_addr")
                )
            index = .some(units)
            return units
        }
    }

    /// The source location of `address`, an offset from the image's load address; `nil` if no line
    /// program covers it.
    ///
    /// Where the spans of several units hold the address, the row that starts closest before it, among
    /// the rows of their line programs that cover it, says where it is.
    ///
    /// When `function`, the mangled name of the function whose code holds the address, is given and the
    /// image's name indexes (`.debug_names`) list the units that define it, those units alone are looked
    /// in, and the image's units need not be indexed; otherwise, or where they do not cover the address,
    /// the units whose spans hold it are.
    ///
    /// - Complexity: O(i) in the image's name indexes when `function` is found in them; else O(u) in its
    ///   compilation units, plus, once per process, indexing them. Plus, the first time an address of a
    ///   unit is looked up, the run of that unit's line program.
    func location(at address: UInt64, function: String? = nil) -> LineTable.Location? {
        if let function, let found = location(at: address, inUnitsDefining: function) { return found }
        guard let units else { return table(of: Self.everyUnit).location(at: address) }
        return location(at: address, inLinePrograms: units.lineProgramOffsets(at: address &+ linkBase))
    }

    /// The location of `address` in the units that the name indexes say define `function`; `nil` if they
    /// list none, cannot be read, or none of those units covers the address.
    private func location(at address: UInt64, inUnitsDefining function: String) -> LineTable.Location? {
        guard let names, let units = names.units(defining: function), !units.isEmpty else { return nil }
        let abbreviations = bytes(of: ".debug_abbrev")
        let programs = units.compactMap { offset in
            unit(at: offset, of: ".debug_info").flatMap {
                CompileUnitIndex.lineProgram(ofUnitAt: 0, in: $0, abbreviations: abbreviations)
            }
        }
        return location(at: address, inLinePrograms: programs)
    }

    /// The location of `address` in the line programs at `offsets`: where several cover it, the row that
    /// starts closest before it.
    private func location(at address: UInt64, inLinePrograms offsets: [Int]) -> LineTable.Location? {
        var best: (start: UInt64, location: LineTable.Location)?
        for unit in offsets {
            if let found = table(of: unit).row(at: address), best.map({ found.start > $0.start }) ?? true {
                best = found
            }
        }
        return best?.location
    }

    /// The line table of the unit whose line program is at `offset` (of every unit at ``everyUnit``),
    /// read on first use.
    ///
    /// A unit's program is copied alone from the mapped image; the string sections a DWARF 5 program may
    /// name its files in (megabytes in a test binary) are copied, once, only for such a program.
    private func table(of offset: Int) -> LineTable {
        tables.withLock { tables in
            if let known = tables[offset] { return known }
            let table: LineTable
            if offset == Self.everyUnit {
                let line = sections[".debug_line"].map { Array(image.bytes(of: $0)) } ?? []
                let namesFiles = Self.hasVersion5Unit(line)
                table = LineTable(
                    debugLine: line,
                    lineStrings: namesFiles ? bytes(of: ".debug_line_str") : [],
                    strings: namesFiles ? bytes(of: ".debug_str") : [],
                    linkBase: linkBase
                )
            } else if let line = unit(at: offset, of: ".debug_line") {
                let namesFiles = Self.hasVersion5Unit(line)
                table = LineTable(
                    debugLine: line,
                    units: [0],
                    lineStrings: namesFiles ? bytes(of: ".debug_line_str") : [],
                    strings: namesFiles ? bytes(of: ".debug_str") : [],
                    linkBase: linkBase
                )
            } else {
                table = LineTable(debugLine: [])
            }
            tables[offset] = table
            return table
        }
    }

    // MARK: - One per image

    /// The images read so far (`nil` for an image without usable line tables).
    private static let images = ImageCache<ImageLineTables>()

    /// The line tables of the image at `path`, read on first use (once per process, see ``ImageCache``);
    /// `nil` if it has none this reader understands.
    static func shared(forImageAt path: String) -> ImageLineTables? {
        images.value(forImageAt: path, reading: ImageLineTables.init(imageAt:))
    }

    // MARK: - Reading

    /// The line tables of the ELF image at `path`, mapped (``MappedImage``), its sections copied as
    /// look-ups need them; `nil` if it has no line tables this reader understands (no `.debug_line`, a
    /// compressed one, one that does not fit in the file, a 32-bit or big-endian image, no loadable segment
    /// at the start of the file).
    convenience init?(imageAt path: String) {
        guard let image = MappedImage.shared(forImageAt: path), image.section(named: ".debug_line") != nil else {
            return nil
        }
        var sections: [String: MappedImage.Section] = [:]
        for name in [
            ".debug_line", ".debug_line_str", ".debug_str", ".debug_info", ".debug_abbrev", ".debug_ranges",
            ".debug_rnglists", ".debug_addr",
        ] {
            sections[name] = image.section(named: name)
        }
        self.init(image: image, sections: sections)
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
