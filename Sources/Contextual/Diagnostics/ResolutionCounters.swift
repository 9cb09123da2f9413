// `ResolutionCounters`: how many times each provider of a context tree was resolved and built.

import Synchronization

// MARK: - ResolutionCounters

/// How many times each provider of a context tree was resolved and built, from
/// ``Context/countResolutions()``: off until then, and free while off.
///
/// ```swift
/// let counters = app.countResolutions()
/// _ = try app.scope(name: "request").require(RequestHandler.self)
/// #expect(counters.count(of: Database.self).built == 1)
/// ```
///
/// A *build* is a call of the provider's factory. A *resolve* is a resolve that reached the provider:
/// every resolve of a scoped or transient object, and the resolves of a singleton until it is built. A
/// built singleton, and a value an `@Injected` property kept, are read without their provider (two
/// loads, which is what keeps counters free when off): those reads are not counted.
public final class ResolutionCounters: Sendable {
    /// The counts of one provider.
    ///
    /// ```swift
    /// counters.counts.map { "\($0.provider): \($0.built) built, \($0.resolved) resolved" }
    /// ```
    public struct Count: Sendable, Codable, Hashable {
        /// The provider's label, e.g. `Database (singleton)`.
        ///
        /// ```swift
        /// count.provider  // "Database (singleton)"
        /// ```
        public var provider: String
        /// How many resolves reached it.
        ///
        /// ```swift
        /// count.resolved
        /// ```
        public var resolved: Int
        /// How many times its factory ran.
        ///
        /// ```swift
        /// count.built
        /// ```
        public var built: Int

        /// Makes a count.
        ///
        /// ```swift
        /// let none = ResolutionCounters.Count(provider: "Database (singleton)", resolved: 0, built: 0)
        /// ```
        public init(provider: String, resolved: Int, built: Int) {
            self.provider = provider
            self.resolved = resolved
            self.built = built
        }
    }

    private struct Entry {
        let provider: any AnyProviderBox
        let entryType: Any.Type?
        var resolved = 0
        var built = 0
    }

    private let counting = Atomic<Bool>(false)
    private let entries = Locked<[ObjectIdentifier: Entry]>.make([:])

    init() {}

    // MARK: - Reading

    /// Whether counting is on.
    ///
    /// ```swift
    /// counters.isCounting  // true after countResolutions()
    /// ```
    public var isCounting: Bool { counting.load(ordering: .relaxed) }

    /// Every provider counted, by label.
    ///
    /// ```swift
    /// for count in counters.counts { print(count.provider, count.built) }
    /// ```
    public var counts: [Count] {
        entries.withLock { entries in
            entries.values.map { Count(provider: $0.provider.label, resolved: $0.resolved, built: $0.built) }
        }
        .sorted { ($0.provider, $0.resolved, $0.built) < ($1.provider, $1.resolved, $1.built) }
    }

    /// The counts of the providers of `type` (an object type, or a ``ContextKey`` for a provider
    /// registered under a key path), added up; zero when none was counted.
    ///
    /// ```swift
    /// #expect(counters.count(of: Database.self).built == 1)
    /// ```
    public func count(of type: Any.Type) -> Count {
        entries.withLock { entries in
            var total = Count(provider: TypeMetadata.name(of: type), resolved: 0, built: 0)
            for entry in entries.values where entry.entryType.map({ ObjectIdentifier($0) }) == ObjectIdentifier(type) {
                total.provider = entry.provider.label
                total.resolved += entry.resolved
                total.built += entry.built
            }
            return total
        }
    }

    /// The total number of factory calls counted.
    ///
    /// ```swift
    /// #expect(counters.totalBuilt == 2)  // this request path builds two objects, no more
    /// ```
    public var totalBuilt: Int { entries.withLock { $0.values.reduce(0) { $0 + $1.built } } }

    // MARK: - Controlling

    /// Forgets every count; counting goes on if it was on.
    ///
    /// ```swift
    /// counters.reset()  // after the warm-up
    /// ```
    public func reset() {
        entries.withLock { $0 = [:] }
    }

    /// Stops counting (the counts are kept); ``Context/countResolutions()`` starts again.
    ///
    /// ```swift
    /// counters.stop()
    /// ```
    public func stop() {
        counting.store(false, ordering: .relaxed)
    }

    func start() {
        counting.store(true, ordering: .relaxed)
    }

    // MARK: - Counting

    func countResolve(of provider: some AnyProviderBox) {
        update(provider) { $0.resolved += 1 }
    }

    func countBuild(of provider: any AnyProviderBox) {
        update(provider) { $0.built += 1 }
    }

    private func update(_ provider: any AnyProviderBox, _ change: (inout Entry) -> Void) {
        let id = ObjectIdentifier(provider)
        entries.withLock { entries in
            if entries[id] == nil {
                entries[id] = Entry(provider: provider, entryType: (provider as? any CountedProvider)?.countedType)
            }
            change(&entries[id]!)
        }
    }
}

// MARK: - CountedProvider

/// The type or key a provider is registered under, for ``ResolutionCounters/count(of:)``.
protocol CountedProvider {
    var countedType: Any.Type { get }
}

extension ProviderBox: CountedProvider {
    var countedType: Any.Type { entryType }
}
