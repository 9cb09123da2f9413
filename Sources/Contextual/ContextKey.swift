// `ContextKey`: a key type that supplies its own default, like SwiftUI's `EnvironmentKey`.

// MARK: - ContextKey

/// A key for a value stored in a ``Context``, with the value to use when no context sets it.
///
/// Declare a key as a case-less enum, keep it internal, and expose it through a computed property on
/// ``ContextValues`` — the `EnvironmentKey` pattern:
///
/// ```swift
/// enum VerbosityKey: ContextKey {
///     static var defaultValue: Int { 0 }
/// }
///
/// extension ContextValues {
///     public var verbosity: Int {
///         get { self[VerbosityKey.self] }
///         set { self[VerbosityKey.self] = newValue }
///     }
/// }
/// ```
///
/// The default is computed once per key per process, lazily (never before the key is first read) and
/// thread-safely; every later read of an unset key returns that same value. A test context reads the
/// key's ``testValue`` instead, computed once per test context (see <doc:Testing>).
///
/// A default may read other keys, but not its own, directly or through other keys' defaults: readers
/// of a key wait for its default's computation, so such a loop would wait for itself. It stops the
/// process instead, naming the keys in order (``ContextError/Code/defaultCycle``).
public protocol ContextKey {
    /// The type of the value stored under this key.
    associatedtype Value: Sendable

    /// The value read when no context in the chain sets this key.
    ///
    /// ```swift
    /// static var defaultValue: Logger { Logger(label: "default") }
    /// ```
    static var defaultValue: Value { get }

    /// The value read when no context in the chain sets this key, in a test context, and, in a test
    /// process, in every context but a live one (``Context/live(name:_:)``): by default the
    /// ``defaultValue``. Computed once per test context (once per process for the contexts that are not
    /// test contexts); never in a production process.
    ///
    /// ```swift
    /// static var testValue: Database { InMemoryDatabase() }
    /// static var testValue: PaymentClient { unimplemented() }  // a read fails the test
    /// ```
    ///
    /// See <doc:Testing>.
    static var testValue: Value { get }
}
