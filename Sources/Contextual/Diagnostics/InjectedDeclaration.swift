// Where an `@Injected` property is declared, for a hard failure of its read (internal).
// Architecture: ARCHITECTURE.md, "The read path".

// MARK: - InjectedDeclaration

/// Where an `@Injected` property is declared: what ``HardFailure`` reports a failed read at. Adopted by the
/// property's memo; a protocol, so that the failure finds it without knowing the property's value type.
protocol InjectedDeclaration: AnyObject {
    /// The `#fileID` of the property's declaration.
    var file: StaticString { get }
    /// The `#line` of the property's declaration.
    var line: UInt { get }
}
