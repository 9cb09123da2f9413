// The container values inside a context's values, for configuring closures and `update`.

// MARK: - Container values

extension ContextValues {
    /// What this context declares about itself for its host (see ``ContainerValueKey``). Its children do
    /// not inherit these values: in a configuring closure this starts out empty, whatever the parent set.
    ///
    /// ```swift
    /// let billing = host.member(name: "billing") { $0.containerValues.displayName = "Billing" }
    /// ```
    public var containerValues: ContainerValues {
        get { ContainerValues(table: own) }
        set { own = own.replacingEntries(where: \.isContainerValue, with: newValue.table) }
        _modify {
            var values = ContainerValues(table: own)
            own = .empty
            defer { own = values.table }
            yield &values
        }
    }
}
