// `ContainerValueKey`: a key for what a member says about itself to its host, never inherited.

// MARK: - ContainerValueKey

/// A key for a value that a context declares about itself, for its host to read: SwiftUI's
/// `ContainerValueKey`.
///
/// A container value is **not inherited**: a child does not see its parent's, and a host reads it only
/// from its direct members (``Context/members``). Declare the key as a case-less enum and expose it
/// through a computed property on ``ContainerValues``:
///
/// ```swift
/// enum DisplayNameKey: ContainerValueKey {
///     static var defaultValue: String { "unnamed module" }
/// }
///
/// extension ContainerValues {
///     var displayName: String {
///         get { self[DisplayNameKey.self] }
///         set { self[DisplayNameKey.self] = newValue }
///     }
/// }
/// ```
public protocol ContainerValueKey {
    /// The type of the value stored under this key.
    associatedtype Value: Sendable

    /// The value read when the member does not set this key.
    ///
    /// ```swift
    /// static var defaultValue: String { "unnamed module" }
    /// ```
    static var defaultValue: Value { get }
}
