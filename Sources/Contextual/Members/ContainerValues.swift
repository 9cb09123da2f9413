// `ContainerValues`: the container values a context sets about itself, one computed property per key.

// MARK: - ContainerValues

/// The values a context declares about itself for its host, keyed by ``ContainerValueKey`` types.
///
/// Set them in the member's configuring closure, or later with ``Context/setContainerValue(_:_:)``; read them
/// from the host, through ``ContextMember/containerValues``:
///
/// ```swift
/// let billing = host.member(name: "billing") { $0.containerValues.displayName = "Billing" }
/// host.members.map(\.containerValues.displayName)  // ["Billing"]
/// ```
///
/// They belong to the context that sets them: its children do not inherit them.
public struct ContainerValues: Sendable {
    /// The context's own entries; only the container values among them are read or written here.
    var table: FrozenTable

    init(table: FrozenTable) {
        self.table = table
    }

    /// The value stored under `key`, or the key's default.
    ///
    /// ```swift
    /// extension ContainerValues {
    ///     var displayName: String {
    ///         get { self[DisplayNameKey.self] }
    ///         set { self[DisplayNameKey.self] = newValue }
    ///     }
    /// }
    /// ```
    public subscript<Key: ContainerValueKey>(key: Key.Type) -> Key.Value {
        get { table.value(StorageID(container: key), as: Key.Value.self) ?? Key.defaultValue }
        set { table.set(StorageID(container: key), to: ValueBox(newValue, entry: key)) }
    }

    /// Removes the value stored under `key`: it reads as the key's default again.
    ///
    /// ```swift
    /// module.update { $0.containerValues.removeValue(for: DisplayNameKey.self) }
    /// ```
    public mutating func removeValue<Key: ContainerValueKey>(for key: Key.Type) {
        table.remove(StorageID(container: key))
    }
}
