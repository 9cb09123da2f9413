// MARK: - StorageID

/// The identity under which a context stores one entry: a key type's metadata address, tagged with the
/// namespace it lives in.
///
/// Identity is `ObjectIdentifier(Key.self)`, never a hashed `KeyPath`: it is a constant per type, needs no
/// allocation and hashes with one multiplication. Type metadata is pointer-aligned, so the low bits are
/// free to tell a value keyed by a ``ContextKey`` apart from an object provided under its own type.
@usableFromInline
struct StorageID: Hashable, Sendable {
    @usableFromInline
    let raw: UInt

    @inlinable
    init(raw: UInt) {
        self.raw = raw
    }

    /// The entry of a ``ContextKey``.
    @inlinable
    init<Key: ContextKey>(key: Key.Type) {
        self.raw = UInt(bitPattern: ObjectIdentifier(key))
    }

    /// The entry of an object provided under its own type.
    @inlinable
    init<Object>(object: Object.Type) {
        self.raw = UInt(bitPattern: ObjectIdentifier(object)) | 1
    }
}
