// The preferences inside a context's values, for configuring closures and `update`.

// MARK: - Preferences

extension ContextValues {
    /// The preferences this context contributes to its hosts (see ``PreferenceKey``). Its children do
    /// not inherit them: in a configuring closure this starts out empty, whatever the parent set.
    ///
    /// ```swift
    /// let billing = host.member(name: "billing") { $0.preferences.routes = ["/invoices"] }
    /// host.preference(\.routes)  // ["/invoices"]
    /// ```
    public var preferences: PreferenceValues {
        get { PreferenceValues(table: own) }
        set { own = own.replacingEntries(where: \.isPreference, with: newValue.table) }
        _modify {
            var values = PreferenceValues(table: own)
            own = .empty
            defer { own = values.table }
            yield &values
        }
    }
}
