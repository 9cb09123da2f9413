// Little-endian integers, LEB128 numbers and C strings read from the bytes of an ELF image's sections.

// MARK: - ByteCursor

/// Reads little-endian integers, LEB128 numbers and C strings from bytes; reads past the end give zeros.
struct ByteCursor {
    /// The bytes read.
    let bytes: [UInt8]
    /// Where the next read starts; past the end, reads give zeros (and empty strings).
    var offset = 0

    /// A cursor at the start of `bytes`.
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A little-endian unsigned integer of `size` bytes (at most 8 are kept).
    mutating func fixed(_ size: Int) -> UInt64 { readFixed(bytes, &offset, size) }

    /// An unsigned LEB128 number.
    mutating func unsigned() -> UInt64 { readUnsigned(bytes, &offset) }

    /// A NUL-terminated UTF-8 string.
    mutating func string() -> String {
        let start = min(offset, bytes.count)
        while offset < bytes.count, bytes[offset] != 0 { offset += 1 }
        let string = String(decoding: bytes[start..<min(offset, bytes.count)], as: UTF8.self)
        offset += 1
        return string
    }
}

/// The little-endian unsigned integer of `size` bytes at `offset` in `bytes` (zeros past the end; at most 8
/// bytes are kept), moving `offset` past it.
func readFixed(_ bytes: [UInt8], _ offset: inout Int, _ size: Int) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    for index in offset..<(offset + min(size, 8)) where index < bytes.count {
        value |= UInt64(bytes[index]) << shift
        shift += 8
    }
    offset += size
    return value
}

/// The unsigned LEB128 number at `offset` in `bytes`, moving `offset` past it.
func readUnsigned(_ bytes: [UInt8], _ offset: inout Int) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while offset < bytes.count {
        let byte = bytes[offset]
        offset += 1
        if shift < 64 { value |= UInt64(byte & 0x7F) << shift }
        shift += 7
        if byte & 0x80 == 0 { break }
    }
    return value
}

/// The signed LEB128 number at `offset` in `bytes`, moving `offset` past it.
func readSigned(_ bytes: [UInt8], _ offset: inout Int) -> Int {
    var value: Int64 = 0
    var shift: Int64 = 0
    var byte: UInt8 = 0
    while offset < bytes.count {
        byte = bytes[offset]
        offset += 1
        if shift < 64 { value |= Int64(byte & 0x7F) << shift }
        shift += 7
        if byte & 0x80 == 0 { break }
    }
    if shift < 64, byte & 0x40 != 0 { value |= ~Int64(0) << shift }
    return Int(value)
}

/// The unsigned LEB128 number at `offset` of the `count` bytes at `bytes`, moving `offset` past it: as
/// ``readUnsigned(_:_:)`` reads it from an array, without a function call per byte in an unoptimized build
/// (a pointer's subscript is always inlined; an array's or a buffer's is a call there).
func readUnsigned(_ bytes: UnsafePointer<UInt8>, count: Int, _ offset: inout Int) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while offset < count {
        let byte = bytes[offset]
        offset += 1
        if shift < 64 { value |= UInt64(byte & 0x7F) << shift }
        shift += 7
        if byte & 0x80 == 0 { break }
    }
    return value
}
