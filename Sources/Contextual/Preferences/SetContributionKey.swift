// `SetContributionKey`: a preference that unites every context's elements.

// MARK: - SetContributionKey

/// A preference that collects elements from many contexts into one set, duplicates merged: Dagger's
/// `@IntoSet`.
///
/// ```swift
/// enum ScopesKey: SetContributionKey {
///     typealias Element = String
/// }
///
/// host.member(name: "billing").contribute(\.oauthScopes, "invoices:read")
/// host.preference(\.oauthScopes)  // ["invoices:read", …]
/// ```
///
/// The default is the empty set and `reduce` is a union, so reducing with the default changes nothing.
public protocol SetContributionKey: PreferenceKey where Value == Set<Element> {
    /// The type of one contribution.
    associatedtype Element: Hashable & Sendable
}

extension SetContributionKey {
    /// The empty set.
    ///
    /// ```swift
    /// host.preference(\.oauthScopes)  // [] while nothing is contributed
    /// ```
    public static var defaultValue: Set<Element> { [] }

    /// Adds the next context's elements.
    ///
    /// ```swift
    /// var all: Set = ["a"]
    /// ScopesKey.reduce(value: &all) { ["a", "b"] }  // ["a", "b"]
    /// ```
    public static func reduce(value: inout Set<Element>, nextValue: () -> Set<Element>) {
        value.formUnion(nextValue())
    }
}
