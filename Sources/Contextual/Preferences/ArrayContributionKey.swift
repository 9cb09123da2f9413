// `ArrayContributionKey`: a preference that appends every context's elements, in subtree order.

// MARK: - ArrayContributionKey

/// A preference that collects elements from many contexts into one array, in subtree order: Dagger's
/// `@IntoSet` kept in order, or Swinject's `resolveAll`.
///
/// ```swift
/// enum MiddlewaresKey: ArrayContributionKey {
///     typealias Element = Middleware
/// }
///
/// extension PreferenceValues {
///     var middlewares: [Middleware] {
///         get { self[MiddlewaresKey.self] }
///         set { self[MiddlewaresKey.self] = newValue }
///     }
/// }
///
/// host.member(name: "auth").contribute(\.middlewares, AuthMiddleware())
/// host.preference(\.middlewares)  // every member's middlewares
/// ```
///
/// The default is `[]` and `reduce` appends, so reducing with the default changes nothing.
public protocol ArrayContributionKey: PreferenceKey where Value == [Element] {
    /// The type of one contribution.
    associatedtype Element: Sendable
}

extension ArrayContributionKey {
    /// No elements.
    ///
    /// ```swift
    /// host.preference(\.middlewares)  // [] while nothing is contributed
    /// ```
    public static var defaultValue: [Element] { [] }

    /// Appends the next context's elements.
    ///
    /// ```swift
    /// var all = [a]
    /// MiddlewaresKey.reduce(value: &all) { [b] }  // [a, b]
    /// ```
    public static func reduce(value: inout [Element], nextValue: () -> [Element]) {
        value.append(contentsOf: nextValue())
    }
}
