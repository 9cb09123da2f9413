// The entry of every provider added for one type along a chain (internal).
// Architecture: ARCHITECTURE.md, "Providers: boxes, build cells, scope stores and resolution frames".

// MARK: - ProviderList

/// Every provider added with ``ContextValues/addProvider(_:lifetime:_:)`` for `Value`, root first: the
/// ancestors' (copied from the inherited entry when a context adds its own) then the context's own, in
/// the order they were added.
///
/// It is stored under the object identity of its own type, which no read resolves: only
/// ``Context/resolveAll(_:)`` reads it, with a checked cast. Tagged as a provider, so that a context
/// holding one reads with an origin; each provider in it is bound to the context that added it.
final class ProviderList<Value: Sendable>: ContextBox {
    /// The providers, root first: the first `count` of a buffer that lists made from this one by
    /// ``appending(_:)`` may share (and extend past `count`, which this list never sees).
    private let buffer: ProviderBuffer<Value>
    /// How many of the buffer's providers are this list's.
    private let count: Int
    /// How many of `providers` the context holding this entry added (the last ones).
    let ownCount: Int

    /// A list of one provider, the first the context holding it added, after `inherited`'s (if any), in
    /// a buffer of its own: an ancestor's buffer is not extended, so that it never holds a provider of a
    /// context below it (a request's) after that context is gone.
    ///
    /// - Complexity: O(*n*) for the *n* providers inherited.
    convenience init(_ provider: ProviderBox<Value>, after inherited: ProviderList?) {
        let providers = (inherited?.providers ?? []) + [provider]
        self.init(buffer: ProviderBuffer(providers), count: providers.count, ownCount: 1)
    }

    private init(buffer: ProviderBuffer<Value>, count: Int, ownCount: Int) {
        self.buffer = buffer
        self.count = count
        self.ownCount = ownCount
    }

    /// Every provider along the chain, root first.
    ///
    /// - Complexity: O(*n*) for *n* providers.
    var providers: [ProviderBox<Value>] { buffer.prefix(count) }

    /// This list with `provider` added last, by the same context.
    ///
    /// - Complexity: Amortized O(1): the buffer grows in place unless a list made from this one already
    ///   extended it, in which case it is copied once.
    func appending(_ provider: ProviderBox<Value>) -> ProviderList {
        ProviderList(buffer: buffer.appending(provider, after: count), count: count + 1, ownCount: ownCount + 1)
    }

    var entryType: Any.Type { Value.self }
    var addressTag: UInt { 1 }

    var entryDescription: String {
        let own = providers.suffix(ownCount).map(\.entryDescription)
        return "\(count) providers along the chain, added here: " + own.joined(separator: "; ")
    }
}

// MARK: - ProviderBuffer

/// The providers that lists share, appended to only: a list sees a prefix of it, which never changes,
/// so that adding *n* providers one by one costs O(*n*) in all instead of a copy of the list per add.
final class ProviderBuffer<Value: Sendable>: Sendable {
    // `Locked` rather than `Mutex`: ThreadSanitizer on Linux does not see a contended `Mutex` hand over,
    // and `Locked` announces its lock sections to it (see `ThreadSanitizerAnnotations`).
    private let items: Locked<[ProviderBox<Value>]>

    init(_ items: [ProviderBox<Value>]) {
        self.items = Locked.make(items)
    }

    /// The first `count` providers.
    func prefix(_ count: Int) -> [ProviderBox<Value>] {
        items.withLock { Array($0.prefix(count)) }
    }

    /// A buffer whose first `count` providers are this one's, followed by `provider`: this buffer, grown
    /// in place, when it holds exactly `count`; else a copy of them.
    func appending(_ provider: ProviderBox<Value>, after count: Int) -> ProviderBuffer {
        let copy = items.withLock { items -> [ProviderBox<Value>]? in
            guard items.count == count else { return Array(items.prefix(count)) }
            items.append(provider)
            return nil
        }
        guard var copy else { return self }
        copy.append(provider)
        return ProviderBuffer(copy)
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
