// Type names for labels and messages, without the conformance scans of `String(describing:)`.
// Architecture: ARCHITECTURE.md, "Primitives".

// MARK: - Names

extension TypeMetadata {
    /// `type`'s name as `String(describing:)` writes it (`Database`, `Factory<(String, Int), Report>`),
    /// read from the runtime's cache of type names.
    ///
    /// ```swift
    /// TypeMetadata.name(of: Made<Leaf>.self)  // "Made<Leaf>"
    /// ```
    ///
    /// `String(describing:)` of a metatype first asks whether the metatype is `TextOutputStreamable`,
    /// `CustomStringConvertible` or `CustomDebugStringConvertible`, then builds a `Mirror` of it. For a
    /// type the process has not asked about, each question scans every conformance record of every
    /// loaded image: about 900,000 instructions for one provider's label, counted in `validate()` and
    /// `bootReport()` of 3,000 providers, where it would be 60% of the first call. The name written is
    /// the same.
    ///
    /// - Complexity: O(*n*) in the length of the name, which is copied from the runtime's cache; the first
    ///   time a type is named, the runtime makes the name from the type's metadata.
    static func name(of type: Any.Type) -> String {
        _typeName(type, qualified: false)
    }

    /// `type`'s name with its module, as `String(reflecting:)` writes it (`MyApp.Database`), read from
    /// the runtime's cache of type names, like ``name(of:)``.
    ///
    /// ```swift
    /// TypeMetadata.qualifiedName(of: Int.self)  // "Swift.Int"
    /// ```
    static func qualifiedName(of type: Any.Type) -> String {
        _typeName(type, qualified: true)
    }
}
