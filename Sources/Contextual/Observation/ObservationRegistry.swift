// `ObservationRegistry`: the subscribers of each observed property, notified after a change.

import Synchronization

// MARK: - ObservationRegistry

/// The subscribers of one observable object's properties, and the deliveries to them.
///
/// An ``ObservableModel`` owns one and ``Observed`` properties report their writes to it. Handlers are
/// called after the new value is stored, synchronously on the writing thread, outside every lock: a
/// handler may read, write, subscribe or cancel without deadlock. When the registry ends (its object is
/// released), every stream of changes it feeds finishes.
///
/// ```swift
/// final class Library: ObservableModel, @unchecked Sendable {
///     let observationRegistry = ObservationRegistry()
///     @Observed var books: [Book] = []
/// }
/// ```
public final class ObservationRegistry: Sendable {
    /// Subscribers by the source they watch: a property storage's address, or a context entry's identity.
    private let state = Locked.make(State())
    /// Whether anything subscribes (written under the lock): a write nobody watches checks it and stops.
    private let hasSubscribers = Atomic<Bool>(false)

    /// Behind one lock (a lock costs two allocations, and every tree makes a registry).
    private struct State {
        /// Subscribers by the source they watch: a property storage's address, or a context entry's
        /// identity.
        var subscribers: [UInt: [UInt64: any Subscriber]] = [:]
        /// The subscriptions made through a context, by the context's identity: dropped with the context
        /// (``endSubscriptions(of:)``), so that tracking a context that goes away leaves nothing behind.
        var owned: [ObjectIdentifier: [UInt64: [UInt]]] = [:]
        /// The identity of the last subscription added.
        var lastID: UInt64 = 0
    }

    /// Makes an empty registry.
    ///
    /// ```swift
    /// let observationRegistry = ObservationRegistry()
    /// ```
    public init() {}

    deinit {
        // Every tree of contexts has a registry, and most were never observed.
        if !hasSubscribers.load(ordering: .acquiring) { return }
        let all = state.withLock { state in
            defer { state = State() }
            return state.subscribers.values.flatMap(\.values)
        }
        for subscriber in all { subscriber.end() }
    }

    // MARK: - Subscribing

    /// Adds `subscriber` to the properties whose storages are `sources`; the token removes it. A
    /// subscription made through a context names it as `owner`: it ends when that context goes.
    func add(_ subscriber: any Subscriber, to sources: [UInt], owner: ObjectIdentifier? = nil) -> ObservationToken {
        let id = state.withLock { state in
            state.lastID += 1
            let id = state.lastID
            for source in sources { state.subscribers[source, default: [:]][id] = subscriber }
            if let owner { state.owned[owner, default: [:]][id] = sources }
            hasSubscribers.store(!state.subscribers.isEmpty, ordering: .sequentiallyConsistent)
            return id
        }
        // Pairs with the fence of `didChange`: a write either sees this subscriber, or stored its value
        // before the subscriber checks whether what it read is still current (and catches up).
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return ObservationToken { [weak self] in
            self?.remove(id, from: sources, owner: owner)
        }
    }

    private func remove(_ id: UInt64, from sources: [UInt], owner: ObjectIdentifier?) {
        state.withLock { state in
            if let owner {
                state.owned[owner]?[id] = nil
                if state.owned[owner]?.isEmpty == true { state.owned[owner] = nil }
            }
            for source in sources {
                state.subscribers[source]?[id] = nil
                if state.subscribers[source]?.isEmpty == true { state.subscribers[source] = nil }
            }
            hasSubscribers.store(!state.subscribers.isEmpty, ordering: .sequentiallyConsistent)
        }
    }

    // MARK: - Delivering

    /// Tells the subscribers of `source` that it changed; called after the new value is stored.
    @usableFromInline
    func didChange(source: UInt) {
        // Pairs with the fence of `add`, as in `didChange(_:)`.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if !hasSubscribers.load(ordering: .relaxed) { return }
        // One source: each subscriber is there once, so no set to tell them apart, and the common single
        // subscriber needs no array either.
        let (single, several) = state.withLock { state -> ((any Subscriber)?, [any Subscriber]) in
            guard let subscribers = state.subscribers[source] else { return (nil, []) }
            if subscribers.count == 1 { return (subscribers.first?.value, []) }
            return (nil, Array(subscribers.values))
        }
        if let single {
            deliver(to: CollectionOfOne(single))
        } else if !several.isEmpty {
            deliver(to: several)
        }
    }

    /// Tells `targets` that what they watch changed, or leaves them to the running batch.
    private func deliver(to targets: some Collection<any Subscriber>) {
        if let batch = ObservationBatch.current {
            for target in targets { batch.defer(target) }
            return
        }
        for target in targets { target.changed() }
    }

    /// Tells the subscribers of `sources` that they changed (each subscriber once); called after the new
    /// values are stored.
    func didChange(_ sources: some Sequence<UInt>) {
        // Pairs with the fence of `add`: the new values are stored; nobody subscribed, nobody to tell.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        didChange(afterFence: sources)
    }

    /// ``didChange(_:)`` for a caller that made the fence itself (a tree of contexts, which makes its
    /// registry lazily and needs the fence before it looks for one).
    func didChange(afterFence sources: some Sequence<UInt>) {
        if !hasSubscribers.load(ordering: .relaxed) { return }
        let targets = state.withLock { state in
            var seen = Set<ObjectIdentifier>()
            var targets: [any Subscriber] = []
            for source in sources {
                for subscriber in state.subscribers[source]?.values ?? [:].values
                where seen.insert(ObjectIdentifier(subscriber)).inserted {
                    targets.append(subscriber)
                }
            }
            return targets
        }
        if !targets.isEmpty { deliver(to: targets) }
    }

    /// Ends the subscriptions made through the context `owner`, which is going away: their subscribers
    /// are removed and told that they ended (outside every lock).
    func endSubscriptions(of owner: ObjectIdentifier) {
        let ended = state.withLock { state -> [any Subscriber] in
            guard let subscriptions = state.owned.removeValue(forKey: owner) else { return [] }
            var ended: [any Subscriber] = []
            for (id, sources) in subscriptions {
                for source in sources {
                    if let subscriber = state.subscribers[source]?.removeValue(forKey: id) { ended.append(subscriber) }
                    if state.subscribers[source]?.isEmpty == true { state.subscribers[source] = nil }
                }
            }
            hasSubscribers.store(!state.subscribers.isEmpty, ordering: .sequentiallyConsistent)
            return ended
        }
        var seen = Set<ObjectIdentifier>()
        for subscriber in ended where seen.insert(ObjectIdentifier(subscriber)).inserted { subscriber.end() }
    }

    /// How many subscriptions watch anything in this registry; for tests and diagnostics.
    var subscriptionCount: Int {
        state.withLock { Set($0.subscribers.values.flatMap(\.keys)).count }
    }
}

// MARK: - Subscriber

/// Something that reacts to a change of a source: re-evaluates what it watches and delivers it.
protocol Subscriber: AnyObject, Sendable {
    /// A source changed (its new value is stored).
    func changed()
    /// The subscription ended (cancelled, or its registry went away).
    func end()
}
