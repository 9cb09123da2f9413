// `PreferenceValues`: the preferences a context sets, and their reduction over a subtree.

// MARK: - PreferenceValues

/// The preferences a context contributes, keyed by ``PreferenceKey`` types; extend it with a computed
/// property per key, as with ``ContextValues``.
///
/// ```swift
/// extension PreferenceValues {
///     var routes: [Route] {
///         get { self[RoutesKey.self] }
///         set { self[RoutesKey.self] = newValue }
///     }
/// }
///
/// let billing = host.member(name: "billing") { $0.preferences.routes = [Route("/invoices")] }
/// host.preference(\.routes)  // every member's routes, reduced
/// ```
public struct PreferenceValues: Sendable {
    /// The context's own entries; only the preferences among them are read or written here.
    var table: FrozenTable
    /// When set, a read reduces the key over this context's subtree rather than reading `table`.
    let subtree: Context?

    init(table: FrozenTable) {
        self.table = table
        self.subtree = nil
    }

    init(reducingOver context: Context) {
        self.table = .empty
        self.subtree = context
    }

    /// The value set under `key` by this context (or its default); read through
    /// ``Context/preference(_:)``, the value reduced over a subtree.
    ///
    /// ```swift
    /// extension PreferenceValues {
    ///     var routes: [Route] {
    ///         get { self[RoutesKey.self] }
    ///         set { self[RoutesKey.self] = newValue }
    ///     }
    /// }
    /// ```
    public subscript<Key: PreferenceKey>(key: Key.Type) -> Key.Value {
        get {
            if let subtree { return subtree.reducePreference(key) }
            return table.value(StorageID(preference: key), as: Key.Value.self) ?? Key.defaultValue
        }
        set { table.set(StorageID(preference: key), to: ValueBox(newValue, entry: key)) }
    }

    /// Removes this context's value for `key`: it no longer contributes to the reduction.
    ///
    /// ```swift
    /// billing.update { $0.preferences.removeValue(for: RoutesKey.self) }
    /// ```
    public mutating func removeValue<Key: PreferenceKey>(for key: Key.Type) {
        table.remove(StorageID(preference: key))
    }
}
