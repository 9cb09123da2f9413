// `DictionaryContributionKey`: a preference that collects keyed contributions, reporting duplicates.

// MARK: - DictionaryContributionKey

/// A preference that collects keyed contributions from many contexts into one dictionary: Dagger's
/// `@IntoMap`. Two contributions under one key are an error that names both contributors, never a
/// silent overwrite.
///
/// ```swift
/// enum HealthChecksKey: DictionaryContributionKey {
///     typealias EntryKey = String
///     typealias EntryValue = HealthCheck
/// }
///
/// extension PreferenceValues {
///     var healthChecks: Contributions<String, HealthCheck> {
///         get { self[HealthChecksKey.self] }
///         set { self[HealthChecksKey.self] = newValue }
///     }
/// }
///
/// host.member(name: "billing").contribute(\.healthChecks, key: "ledger", LedgerCheck())
/// let checks = try host.contributions(\.healthChecks)  // ["ledger": LedgerCheck(), …]
/// ```
///
/// The default is empty and `reduce` appends entries (the duplicate check happens when the dictionary
/// is taken), so reducing with the default changes nothing.
public protocol DictionaryContributionKey: PreferenceKey where Value == Contributions<EntryKey, EntryValue> {
    /// The type of a contribution's key.
    associatedtype EntryKey: Hashable & Sendable
    /// The type of a contribution's value.
    associatedtype EntryValue: Sendable
}

extension DictionaryContributionKey {
    /// No contributions.
    ///
    /// ```swift
    /// try host.contributions(\.healthChecks)  // [:] while nothing is contributed
    /// ```
    public static var defaultValue: Contributions<EntryKey, EntryValue> { Contributions() }

    /// Appends the next context's contributions.
    ///
    /// ```swift
    /// var all: Contributions = ["ledger": ledger]
    /// HealthChecksKey.reduce(value: &all) { ["sessions": sessions] }  // both
    /// ```
    public static func reduce(
        value: inout Contributions<EntryKey, EntryValue>,
        nextValue: () -> Contributions<EntryKey, EntryValue>
    ) {
        value.append(contentsOf: nextValue())
    }
}
