// The entry of every provider added for one type along a chain (internal).

// MARK: - ProviderList

/// Every provider added with ``ContextValues/addProvider(_:lifetime:_:)`` for `Value`, root first: the
/// ancestors' (copied from the inherited entry when a context adds its own) then the context's own, in
/// the order they were added.
///
/// It is stored under the object identity of its own type, which no read resolves: only
/// ``Context/resolveAll(_:)`` reads it, with a checked cast. Tagged as a provider, so that a context
/// holding one reads with an origin; each provider in it is bound to the context that added it.
final class ProviderList<Value: Sendable>: ContextBox {
    let providers: [ProviderBox<Value>]
    /// How many of `providers` the context holding this entry added (the last ones).
    let ownCount: Int

    init(providers: [ProviderBox<Value>], ownCount: Int) {
        self.providers = providers
        self.ownCount = ownCount
    }

    var entryType: Any.Type { Value.self }
    var addressTag: UInt { 1 }

    var entryDescription: String {
        let own = providers.suffix(ownCount).map(\.entryDescription)
        return "\(providers.count) providers along the chain, added here: " + own.joined(separator: "; ")
    }
}

// MARK: - AnyProviderList

/// What binding and validation need of a ``ProviderList``, whatever it provides.
protocol AnyProviderList: ContextBox {
    var anyProviders: [any AnyProviderBox] { get }
    var ownProviders: [any AnyProviderBox] { get }
}

extension ProviderList: AnyProviderList {
    var anyProviders: [any AnyProviderBox] { providers }
    var ownProviders: [any AnyProviderBox] { Array(providers.suffix(ownCount)) }
}
