// `StorageID`: the identity of an entry (a key, an object type, a container value or a preference).
// Architecture: ARCHITECTURE.md, "Tables: FrozenTable and TableStorage".

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

    /// The entry of a ``ContainerValueKey``: about the context that sets it, never inherited.
    init<Key: ContainerValueKey>(container key: Key.Type) {
        self.raw = UInt(bitPattern: ObjectIdentifier(key)) | 2
    }

    /// The entry of a ``PreferenceKey``: the context's own contribution, never inherited.
    init<Key: PreferenceKey>(preference key: Key.Type) {
        self.raw = UInt(bitPattern: ObjectIdentifier(key)) | 3
    }

    /// Whether the entry belongs to its context alone (a container value or a preference): children do
    /// not inherit it.
    var isLocal: Bool { raw & 2 != 0 }

    /// Whether the entry is a container value.
    var isContainerValue: Bool { raw & 3 == 2 }

    /// Whether the entry is a preference.
    var isPreference: Bool { raw & 3 == 3 }

    /// What the entry is, for diagnostics.
    var kind: String {
        switch raw & 3 {
        case 0: "key"
        case 1: "object"
        case 2: "container value"
        default: "preference"
        }
    }
}
