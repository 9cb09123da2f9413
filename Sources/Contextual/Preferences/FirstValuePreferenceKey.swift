// `FirstValuePreferenceKey`: a preference whose reduced value is the first one set.

// MARK: - FirstValuePreferenceKey

/// A preference that reads as the first value set in subtree order: the host's own, else its first
/// member's that sets one, and so on.
///
/// ```swift
/// enum HomePageKey: FirstValuePreferenceKey {
///     typealias Wrapped = String
/// }
///
/// host.member(name: "billing") { $0.preferences.homePage = "/invoices" }
/// host.member(name: "auth") { $0.preferences.homePage = "/login" }
/// host.preference(\.homePage)  // "/invoices"
/// ```
///
/// The default is `nil` and `reduce` keeps the first non-nil value, so reducing with the default
/// changes nothing.
public protocol FirstValuePreferenceKey: PreferenceKey where Value == Wrapped? {
    /// The type of the value, without the optional.
    associatedtype Wrapped: Sendable
}

extension FirstValuePreferenceKey {
    /// `nil`: nobody set a value.
    ///
    /// ```swift
    /// host.preference(\.homePage)  // nil while nothing is set
    /// ```
    public static var defaultValue: Wrapped? { nil }

    /// Keeps the value so far, unless there is none yet.
    ///
    /// ```swift
    /// var first: String? = "/invoices"
    /// HomePageKey.reduce(value: &first) { "/login" }  // "/invoices"
    /// ```
    public static func reduce(value: inout Wrapped?, nextValue: () -> Wrapped?) {
        if value == nil { value = nextValue() }
    }
}
