// `PreferenceKey`: a value that flows up from members and is reduced, like SwiftUI's.

// MARK: - PreferenceKey

/// A key for a value that flows up: contexts set it, and an ancestor reads it reduced over its whole
/// subtree of members, like SwiftUI's `PreferenceKey`.
///
/// ```swift
/// enum RouteCountKey: PreferenceKey {
///     static var defaultValue: Int { 0 }
///     static func reduce(value: inout Int, nextValue: () -> Int) { value += nextValue() }
/// }
///
/// extension PreferenceValues {
///     var routeCount: Int {
///         get { self[RouteCountKey.self] }
///         set { self[RouteCountKey.self] = newValue }
///     }
/// }
///
/// host.member(name: "billing") { $0.preferences.routeCount = 3 }
/// host.member(name: "auth") { $0.preferences.routeCount = 2 }
/// host.preference(\.routeCount)  // 5
/// ```
///
/// **The reduction.** ``Context/preference(_:)`` starts from `defaultValue` and calls `reduce` with the
/// value of each context in the subtree that sets the key: the context itself first, then its members
/// in registration order, each member's own subtree before the next member (depth first). Contexts
/// that do not set the key are skipped.
///
/// **The rule.** Reducing with the default must change nothing: for every value `x`,
/// `reduce(default, x) == x` and `reduce(x, default) == x`. Then a context that sets the default reads
/// the same as one that sets nothing, and a single contributor reads as its own value. The built-in
/// keys keep it: ``ArrayContributionKey``, ``SetContributionKey``, ``DictionaryContributionKey``,
/// ``SumPreferenceKey``, ``FirstValuePreferenceKey`` and ``LastValuePreferenceKey``.
public protocol PreferenceKey {
    /// The type of the value.
    associatedtype Value: Sendable

    /// The value read when no context in the subtree sets the key; the start of the reduction.
    ///
    /// ```swift
    /// static var defaultValue: [Route] { [] }
    /// ```
    static var defaultValue: Value { get }

    /// Combines the value reduced so far with the next context's value, in subtree order.
    ///
    /// ```swift
    /// static func reduce(value: inout [Route], nextValue: () -> [Route]) {
    ///     value.append(contentsOf: nextValue())
    /// }
    /// ```
    static func reduce(value: inout Value, nextValue: () -> Value)
}
