// `Contributions`: keyed contributions that remember who made each one, so duplicates are reported.

// MARK: - Contributions

/// Keyed contributions from many contexts, in subtree order, each with the context that made it: the
/// value of a ``DictionaryContributionKey``. Take it as a dictionary with ``dictionary()``, which
/// reports a key contributed twice.
///
/// ```swift
/// let checks = host.preference(\.healthChecks)
/// checks.entries.map(\.contributor)  // ["host → billing", "host → auth"]
/// let byName = try checks.dictionary()
/// ```
public struct Contributions<Key: Hashable & Sendable, Value: Sendable>: Sendable, ExpressibleByDictionaryLiteral {
    /// One contribution.
    ///
    /// ```swift
    /// for entry in host.preference(\.healthChecks).entries { print(entry.key, entry.contributor ?? "?") }
    /// ```
    public struct Entry: Sendable {
        /// The key it is contributed under.
        ///
        /// ```swift
        /// entry.key  // "ledger"
        /// ```
        public let key: Key
        /// The contributed value.
        ///
        /// ```swift
        /// try await entry.value.check()
        /// ```
        public let value: Value
        /// The chain of the context that contributed it (`"host → billing"`), once read through
        /// ``Context/preference(_:)``; nil in the contributing context's own values.
        ///
        /// ```swift
        /// entry.contributor  // "host → billing"
        /// ```
        public let contributor: String?
    }

    /// Every contribution, in subtree order; a key may appear more than once.
    ///
    /// ```swift
    /// host.preference(\.healthChecks).entries.count  // 2
    /// ```
    public private(set) var entries: [Entry]

    /// The preference key these were contributed to, once read through ``Context/preference(_:)``.
    private var preferenceName: String?

    /// No contributions.
    ///
    /// ```swift
    /// var checks = Contributions<String, HealthCheck>()
    /// ```
    public init() {
        entries = []
    }

    /// Contributions from a literal, e.g. in a configuring closure.
    ///
    /// ```swift
    /// host.member(name: "billing") { $0.preferences.healthChecks = ["ledger": LedgerCheck()] }
    /// ```
    public init(dictionaryLiteral elements: (Key, Value)...) {
        entries = elements.map { Entry(key: $0.0, value: $0.1, contributor: nil) }
    }

    /// Adds `value` under `key`. Adding a key twice is reported by ``dictionary()``, not overwritten.
    ///
    /// ```swift
    /// $0.preferences.healthChecks.add(LedgerCheck(), for: "ledger")
    /// ```
    public mutating func add(_ value: Value, for key: Key) {
        entries.append(Entry(key: key, value: value, contributor: nil))
    }

    /// Adds every entry of `other`, after these.
    ///
    /// ```swift
    /// mine.append(contentsOf: theirs)
    /// ```
    public mutating func append(contentsOf other: Contributions) {
        entries += other.entries
        preferenceName = preferenceName ?? other.preferenceName
    }

    /// Whether nothing was contributed.
    ///
    /// ```swift
    /// host.preference(\.healthChecks).isEmpty  // false
    /// ```
    public var isEmpty: Bool { entries.isEmpty }

    /// The contributions as a dictionary.
    ///
    /// ```swift
    /// let checks = try host.preference(\.healthChecks).dictionary()
    /// ```
    ///
    /// - Throws: ``ContextError`` with code ``ContextError/Code/duplicateContribution`` naming the key and
    ///   both of its contributors, for the first key contributed twice.
    public func dictionary() throws(ContextError) -> [Key: Value] {
        var result: [Key: Value] = [:]
        var contributors: [Key: String?] = [:]
        for entry in entries {
            if let first = contributors[entry.key] {
                throw ContextError.duplicateContribution(
                    key: String(reflecting: entry.key),
                    preference: preferenceName ?? String(reflecting: Self.self),
                    first: first,
                    second: entry.contributor
                )
            }
            contributors[entry.key] = entry.contributor
            result[entry.key] = entry.value
        }
        return result
    }
}

// MARK: - Equatable

extension Contributions: Equatable where Value: Equatable {
    /// Equal when they hold the same entries, in the same order, from the same contributors.
    ///
    /// ```swift
    /// Contributions(dictionaryLiteral: ("a", 1)) == ["a": 1]  // true
    /// ```
    public static func == (lhs: Contributions, rhs: Contributions) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy {
                $0.key == $1.key && $0.value == $1.value && $0.contributor == $1.contributor
            }
    }
}

// MARK: - Attribution

/// A preference value that records which context contributed it, stamped as a subtree is reduced.
protocol AttributedContribution {
    func attributed(to contributor: String, preference: String) -> Self
}

extension Contributions: AttributedContribution {
    func attributed(to contributor: String, preference: String) -> Contributions {
        var copy = self
        copy.entries = entries.map { Entry(key: $0.key, value: $0.value, contributor: $0.contributor ?? contributor) }
        copy.preferenceName = preference
        return copy
    }
}
