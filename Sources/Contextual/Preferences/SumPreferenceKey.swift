// `SumPreferenceKey`: a preference whose reduced value is the sum of the values set.

// MARK: - SumPreferenceKey

/// A preference whose contributions add up, e.g. the connections each module needs from a shared pool.
///
/// ```swift
/// enum PoolSizeKey: SumPreferenceKey {
///     typealias Value = Int
/// }
///
/// host.member(name: "billing") { $0.preferences.poolSize = 4 }
/// host.member(name: "auth") { $0.preferences.poolSize = 2 }
/// host.preference(\.poolSize)  // 6
/// ```
///
/// The default is `.zero` and `reduce` adds, so reducing with the default changes nothing.
public protocol SumPreferenceKey: PreferenceKey where Value: AdditiveArithmetic {}

extension SumPreferenceKey {
    /// Zero.
    ///
    /// ```swift
    /// host.preference(\.poolSize)  // 0 while nothing is contributed
    /// ```
    public static var defaultValue: Value { .zero }

    /// Adds the next context's value.
    ///
    /// ```swift
    /// var total = 4
    /// PoolSizeKey.reduce(value: &total) { 2 }  // 6
    /// ```
    public static func reduce(value: inout Value, nextValue: () -> Value) {
        value += nextValue()
    }
}
