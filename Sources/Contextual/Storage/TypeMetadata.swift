// What a type's runtime metadata tells about it, for messages.
// Architecture: ARCHITECTURE.md, "Primitives".

// MARK: - TypeMetadata

/// Reads of a type's runtime metadata.
enum TypeMetadata {
    /// Whether `type` is an existential (`any Store`, `any Store & Sendable`, `any Sequence<Int>`, `Any`,
    /// `AnyObject`): a protocol is provided and spelled differently from a concrete type, which a
    /// message's fix must follow. Read from the kind at the start of its metadata (existential: 0x303,
    /// extended existential: 0x307; stable across the ABI).
    ///
    /// ```swift
    /// TypeMetadata.isExistential((any Store).self)  // true
    /// TypeMetadata.isExistential(Database.self)     // false
    /// ```
    static func isExistential(_ type: Any.Type) -> Bool {
        // Safe: every type's metadata starts with its kind, a word.
        let kind = unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self)
        return kind == 0x303 || kind == 0x307
    }
}
