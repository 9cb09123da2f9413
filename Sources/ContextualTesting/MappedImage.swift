// An ELF image's file, mapped read-only, with its sections: what naming a frame and finding its
// compilation unit read, a few bytes of sections that are megabytes.

import Contextual

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - MappedImage

/// An ELF image (64-bit little-endian), its file mapped read-only for the life of the process, with its
/// section headers: a look-up reads the bytes it needs, and the kernel brings in their pages only.
///
/// ```swift
/// let image = MappedImage.shared(forImageAt: path)
/// let table = image?.sections.first { $0.type == 2 }  // SHT_SYMTAB
/// ```
final class MappedImage: @unchecked Sendable {
    // @unchecked Sendable: the mapping is read-only and never unmapped; nothing in it changes.

    /// A section's header.
    struct Section: Sendable {
        /// Its name, from the section names' table.
        var name: String
        /// `sh_type` (SHT_SYMTAB is 2, SHT_STRTAB 3, SHT_NOBITS 8).
        var type: UInt32
        /// `sh_flags` (SHF_COMPRESSED is 0x800).
        var flags: UInt64
        /// Where its bytes start in the file.
        var offset: Int
        /// How many bytes it has in the file (none for SHT_NOBITS).
        var size: Int
        /// `sh_link`: the index of a related section (a symbol table's names).
        var link: Int
        /// `sh_entsize`: the size of each entry of a table.
        var entrySize: UInt64
        /// Whether its bytes are in the file: not SHT_NOBITS, and within the file's size (else ``size``
        /// is 0).
        var isInFile: Bool
    }

    /// The mapped file.
    let file: UnsafeRawPointer
    /// The file's size.
    let size: Int
    /// The sections, by index.
    let sections: [Section]
    /// What to add to an address relative to the image's load address to get the address its symbols and
    /// debug information use: the link address of the loadable segment that maps the start of the file.
    let linkBase: UInt64

    private init(file: UnsafeRawPointer, size: Int, sections: [Section], linkBase: UInt64) {
        self.file = file
        self.size = size
        self.sections = sections
        self.linkBase = linkBase
    }

    /// The first section named `name` whose bytes are in the file, uncompressed; `nil` if there is none
    /// (SHF_COMPRESSED sections would need zlib or zstd; SHT_NOBITS ones occupy no bytes of the file,
    /// whatever their size says).
    func section(named name: String) -> Section? {
        sections.first { $0.name == name && $0.isInFile && $0.flags & 0x800 == 0 }
    }

    /// The bytes of `section`.
    func bytes(of section: Section) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: file + section.offset, count: section.size)
    }

    // MARK: - One per image

    /// The images mapped so far (`nil` for a file that is no image this reader understands).
    private static let images = ImageCache<MappedImage>()

    /// The image at `path`, mapped on first use (once per process, see ``ImageCache``); `nil` if it is no
    /// image this reader understands.
    static func shared(forImageAt path: String) -> MappedImage? {
        images.value(forImageAt: path, reading: MappedImage.init(imageAt:))
    }

    // MARK: - Reading

    /// Maps the ELF image at `path`; `nil` if it cannot be opened, is not a 64-bit little-endian ELF
    /// file, has no loadable segment at the start of the file, or has section headers that do not fit in
    /// it.
    convenience init?(imageAt path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 64 else { return nil }
        let size = Int(status.st_size)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            return nil
        }
        let file = UnsafeRawPointer(mapped)
        guard let layout = Self.layout(of: file, size: size) else {
            munmap(mapped, size)
            return nil
        }
        self.init(file: file, size: size, sections: layout.sections, linkBase: layout.linkBase)
    }

    /// The sections of the mapped file `file` of `size` bytes, and the link address of its loadable
    /// segment at file offset 0; `nil` for a file this reader does not understand. A section whose bytes
    /// do not fit in the file has none.
    private static func layout(of file: UnsafeRawPointer, size: Int) -> (sections: [Section], linkBase: UInt64)? {
        /// The little-endian integer of `width` bytes at `offset`; 0 past the end.
        func read(_ offset: Int, _ width: Int) -> UInt64 {
            guard offset >= 0, width <= size, offset <= size - width else { return 0 }
            var value: UInt64 = 0
            for byte in 0..<width {
                value |= UInt64(file.load(fromByteOffset: offset + byte, as: UInt8.self)) << (8 * byte)
            }
            return value
        }
        // The ELF header: magic, 64-bit (class 2), little-endian (data 1).
        guard read(0, 4) == 0x464C_457F, read(4, 1) == 2, read(5, 1) == 1 else { return nil }
        let programHeaders = Int(clamping: read(0x20, 8))
        let sectionHeaders = Int(clamping: read(0x28, 8))
        let programHeaderSize = Int(read(0x36, 2))
        let programHeaderCount = Int(read(0x38, 2))
        let sectionHeaderSize = Int(read(0x3A, 2))
        let sectionHeaderCount = Int(read(0x3C, 2))
        let namesIndex = Int(read(0x3E, 2))
        // Offsets within the file: the sums below then stay far from overflowing.
        guard programHeaderSize >= 56, sectionHeaderSize >= 64, programHeaders <= size, sectionHeaders <= size,
            sectionHeaders + sectionHeaderCount * sectionHeaderSize <= size
        else { return nil }

        // The link address of the loadable segment (PT_LOAD) at file offset 0.
        var linkBase: UInt64?
        for index in 0..<programHeaderCount {
            let entry = programHeaders + index * programHeaderSize
            if read(entry, 4) == 1, read(entry + 8, 8) == 0 { linkBase = read(entry + 16, 8) }
        }
        guard let linkBase else { return nil }

        // The section headers: name, type, flags, address, offset, size, link, info, alignment, entry size.
        let names = namesIndex < sectionHeaderCount ? placed(namesIndex) : nil
        /// Where the bytes of the section at `index` are in the file; `nil` if they are not in it.
        func placed(_ index: Int) -> (offset: Int, size: Int)? {
            let entry = sectionHeaders + index * sectionHeaderSize
            let offset = Int(clamping: read(entry + 24, 8))
            let length = Int(clamping: read(entry + 32, 8))
            guard read(entry + 4, 4) != 8, offset <= size, length <= size - offset else { return nil }
            return (offset, length)
        }
        /// The name at `offset` of the section names' table; empty if it does not end within it.
        func name(at offset: Int) -> String {
            guard let names, offset < names.size else { return "" }
            let start = (file + names.offset + offset).assumingMemoryBound(to: UInt8.self)
            var length = 0
            while length < names.size - offset, start[length] != 0 { length += 1 }
            guard length < names.size - offset else { return "" }
            return String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self)
        }
        var sections: [Section] = []
        for index in 0..<sectionHeaderCount {
            let entry = sectionHeaders + index * sectionHeaderSize
            let bytes = placed(index)
            sections.append(
                Section(
                    name: name(at: Int(read(entry, 4))),
                    type: UInt32(read(entry + 4, 4)),
                    flags: read(entry + 8, 8),
                    offset: bytes?.offset ?? 0,
                    size: bytes?.size ?? 0,
                    link: Int(read(entry + 40, 4)),
                    entrySize: read(entry + 56, 8),
                    isInFile: bytes != nil
                )
            )
        }
        return (sections, linkBase)
    }
}
