// `LastValuePreferenceKey`: a preference whose reduced value is the last one set.

// MARK: - LastValuePreferenceKey

/// A preference that reads as the last value set in subtree order, so the latest registered member
/// (or the deepest) wins.
///
/// ```swift
/// enum LogLevelOverrideKey: LastValuePreferenceKey {
///     typealias Wrapped = String
/// }
///
/// host.member(name: "billing") { $0.preferences.logLevelOverride = "info" }
/// host.member(name: "debugging") { $0.preferences.logLevelOverride = "trace" }
/// host.preference(\.logLevelOverride)  // "trace"
/// ```
///
/// The default is `nil` and `reduce` keeps the last non-nil value, so reducing with the default
/// changes nothing.
public protocol LastValuePreferenceKey: PreferenceKey where Value == Wrapped? {
    /// The type of the value, without the optional.
    associatedtype Wrapped: Sendable
}

extension LastValuePreferenceKey {
    /// `nil`: nobody set a value.
    ///
    /// ```swift
    /// host.preference(\.logLevelOverride)  // nil while nothing is set
    /// ```
    public static var defaultValue: Wrapped? { nil }

    /// Replaces the value so far with the next one, unless the next one is `nil`.
    ///
    /// ```swift
    /// var last: String? = "info"
    /// LogLevelOverrideKey.reduce(value: &last) { "trace" }  // "trace"
    /// ```
    public static func reduce(value: inout Wrapped?, nextValue: () -> Wrapped?) {
        if let next = nextValue() { value = next }
    }
}
