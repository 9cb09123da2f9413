// `ObservationRegistry`: the subscribers of each observed property, notified after a change.

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
    private let subscribers = Locked<[UInt: [UInt64: any Subscriber]]>([:])
    private let nextID = Locked<UInt64>(0)
    /// The subscriptions made through a context, by the context's identity: dropped with the context
    /// (``endSubscriptions(of:)``), so that tracking a context that goes away leaves nothing behind.
    private let owned = Locked<[ObjectIdentifier: [UInt64: [UInt]]]>([:])

    /// Makes an empty registry.
    ///
    /// ```swift
    /// let observationRegistry = ObservationRegistry()
    /// ```
    public init() {}

    deinit {
        let all = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return subscribers.values.flatMap(\.values)
        }
        for subscriber in all { subscriber.end() }
    }

    // MARK: - Subscribing

    /// Adds `subscriber` to the properties whose storages are `sources`; the token removes it. A
    /// subscription made through a context names it as `owner`: it ends when that context goes.
    func add(_ subscriber: any Subscriber, to sources: [UInt], owner: ObjectIdentifier? = nil) -> ObservationToken {
        let id = nextID.withLock { next in
            next += 1
            return next
        }
        subscribers.withLock { subscribers in
            for source in sources { subscribers[source, default: [:]][id] = subscriber }
        }
        if let owner { owned.withLock { $0[owner, default: [:]][id] = sources } }
        return ObservationToken { [weak self] in
            self?.remove(id, from: sources, owner: owner)
        }
    }

    private func remove(_ id: UInt64, from sources: [UInt], owner: ObjectIdentifier?) {
        if let owner {
            owned.withLock { owned in
                owned[owner]?[id] = nil
                if owned[owner]?.isEmpty == true { owned[owner] = nil }
            }
        }
        subscribers.withLock { subscribers in
            for source in sources {
                subscribers[source]?[id] = nil
                if subscribers[source]?.isEmpty == true { subscribers[source] = nil }
            }
        }
    }

    // MARK: - Delivering

    /// Tells the subscribers of `sources` that they changed (each subscriber once); called after the new
    /// values are stored.
    func didChange(_ sources: some Sequence<UInt>) {
        let targets = subscribers.withLock { subscribers in
            var seen = Set<ObjectIdentifier>()
            var targets: [any Subscriber] = []
            for source in sources {
                for subscriber in subscribers[source]?.values ?? [:].values
                where seen.insert(ObjectIdentifier(subscriber)).inserted {
                    targets.append(subscriber)
                }
            }
            return targets
        }
        if targets.isEmpty { return }
        if let batch = ObservationBatch.current {
            for target in targets { batch.defer(target) }
            return
        }
        for target in targets { target.changed() }
    }

    /// Ends the subscriptions made through the context `owner`, which is going away: their subscribers
    /// are removed and told that they ended (outside every lock).
    func endSubscriptions(of owner: ObjectIdentifier) {
        guard let subscriptions = owned.withLock({ $0.removeValue(forKey: owner) }) else { return }
        let ended = subscribers.withLock { subscribers -> [any Subscriber] in
            var ended: [any Subscriber] = []
            for (id, sources) in subscriptions {
                for source in sources {
                    if let subscriber = subscribers[source]?.removeValue(forKey: id) { ended.append(subscriber) }
                    if subscribers[source]?.isEmpty == true { subscribers[source] = nil }
                }
            }
            return ended
        }
        var seen = Set<ObjectIdentifier>()
        for subscriber in ended where seen.insert(ObjectIdentifier(subscriber)).inserted { subscriber.end() }
    }

    /// How many subscriptions watch anything in this registry; for tests and diagnostics.
    var subscriptionCount: Int {
        subscribers.withLock { Set($0.values.flatMap(\.keys)).count }
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
