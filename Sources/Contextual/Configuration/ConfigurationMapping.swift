// `ConfigurationMapping`: context values filled from a configuration source, all checked before any is set.
// Architecture: ARCHITECTURE.md, "Configuration mappings".

// MARK: - ConfigurationMapping

/// How a configuration source fills context values: each value read from the source, every read and
/// every rule checked before any value is set, so that a source with one bad value changes nothing.
///
/// The source is whatever your configuration library hands you (swift-configuration's
/// `ConfigSnapshotReader`, a dictionary, a decoded file); the mapping names no library. Make one
/// mapping, use it at boot and for every reload:
///
/// ```swift
/// var mapping = ConfigurationMapping<[String: String]>()
/// mapping.map("greeting", to: \.greeting) { source, key in
///     guard let greeting = source[key] else { throw Missing(key: key) }
///     return greeting
/// }
/// mapping.check("the greeting is not empty") { !$0.greeting.isEmpty }
///
/// let app = try Context(name: "app") { try mapping.apply(initial, to: &$0) }
/// try app.update(from: reloaded, with: mapping)  // all of it, or nothing and a ContextError
/// ```
///
/// A read throws for a value that is missing or invalid; the error it throws is kept, with the
/// configuration key's name, in the ``ContextError`` (code ``ContextError/Code/invalidConfiguration``)
/// that lists every failing read; when every read succeeds, the error lists every rule broken.
public struct ConfigurationMapping<Source>: Sendable {
    // MARK: - Entries

    /// One mapped value: its configuration key, the type of the value it sets (for messages), and how it
    /// is read (returning the assignment to make once every read succeeded).
    struct Entry: Sendable {
        let name: String
        let valueType: String
        let read: @Sendable (Source) throws -> @Sendable (inout ContextValues) -> Void
        /// Sets the value in the values it is given to the value they read now.
        let pin: @Sendable (inout ContextValues) -> Void
    }

    var entries: [Entry] = []
    var rules: [ConfigurationRule] = []

    /// Makes an empty mapping.
    ///
    /// ```swift
    /// var mapping = ConfigurationMapping<ConfigSnapshotReader>()
    /// ```
    public init() {}

    // MARK: - Mapping values

    /// Sets the value at `keyPath` from what `read` returns for a source.
    ///
    /// ```swift
    /// mapping.map("http.greeting", to: \.serverConfig.greeting) { snapshot, key in
    ///     try snapshot.requiredString(forKey: ConfigKey(key))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The configuration key, as an operator knows it: `read` is given it, and the error of a
    ///     failed read names it.
    ///   - keyPath: The value to set: a key's property (`\.greeting`) or a part of one
    ///     (`\.serverConfig.greeting`).
    ///   - read: Reads the value under the key `name` from a source; throws when it is missing or invalid.
    public mutating func map<Value: Sendable>(
        _ name: String,
        to keyPath: WritableKeyPath<ContextValues, Value> & Sendable,
        _ read: @escaping @Sendable (_ source: Source, _ name: String) throws -> Value
    ) {
        entries.append(
            Entry(
                name: name,
                valueType: TypeMetadata.name(of: Value.self),
                read: { source in
                    let value = try read(source, name)
                    return { values in values[keyPath: keyPath] = value }
                },
                pin: { values in values[keyPath: keyPath] = values[keyPath: keyPath] }
            )
        )
    }

    /// Adds a rule that the values must keep once every mapped value is set: a source that breaks it
    /// changes nothing.
    ///
    /// ```swift
    /// mapping.check("the pool has at least 1 connection") { $0.database.poolSize >= 1 }
    /// ```
    ///
    /// - Parameters:
    ///   - description: What the rule says, in the error of a source that breaks it.
    ///   - isKept: Whether the values, with every mapped value set, keep the rule.
    public mutating func check(
        _ description: String,
        _ isKept: @escaping @Sendable (ContextValues) -> Bool
    ) {
        rules.append(ConfigurationRule(description: description, isKept: isKept))
    }

    // MARK: - Applying

    /// Sets every mapped value of `values` from `source`, or none: every read runs first, then the rules
    /// are checked on the values with every mapped value set; `values` changes only when all succeed.
    ///
    /// ```swift
    /// let app = try Context(name: "app") { try mapping.apply(snapshot, to: &$0) }
    /// ```
    ///
    /// - Throws: ``ContextError`` (``ContextError/Code/invalidConfiguration``) listing every read that
    ///   failed, with its configuration key and error; when every read succeeded, every rule broken.
    /// - Complexity: O(*m* + *r*) for the *m* mapped values and *r* rules, plus what the reads and rules do.
    public func apply(_ source: Source, to values: inout ContextValues) throws(ContextError) {
        try read(source, searched: []).apply(to: &values)
    }

    /// Sets each mapped value in `values` to the value it has there now: a child made with it keeps the
    /// configuration it started with when its parent is later updated from a source. A value mapped to a
    /// part of a key (`\.serverConfig.greeting`) sets the whole key, as any assignment through it does.
    ///
    /// ```swift
    /// let request = app.child(name: "request") { mapping.pinMappedValues(in: &$0) }
    /// ```
    ///
    /// - Complexity: O(*m*) for the *m* mapped values.
    public func pinMappedValues(in values: inout ContextValues) {
        for entry in entries { entry.pin(&values) }
    }

    /// Reads every mapped value of `source`, without setting any: the assignments to make, or the error
    /// listing every read that failed. `searched` names the contexts for that error.
    func read(_ source: Source, searched: [String]) throws(ContextError) -> ReadConfiguration {
        var assignments: [@Sendable (inout ContextValues) -> Void] = []
        var failures: [ConfigurationFailure] = []
        for entry in entries {
            do {
                assignments.append(try entry.read(source))
            } catch {
                failures.append(.read(name: entry.name, valueType: entry.valueType, error: error))
            }
        }
        guard failures.isEmpty else {
            throw ContextError.invalidConfiguration(failures, searched: searched)
        }
        return ReadConfiguration(assignments: assignments, rules: rules, searched: searched)
    }
}

// MARK: - A configuration read

/// The assignments a source's reads made, ready to set, and the rules to check once they are set.
struct ReadConfiguration: Sendable {
    let assignments: [@Sendable (inout ContextValues) -> Void]
    let rules: [ConfigurationRule]
    let searched: [String]

    /// Sets every value on a copy of `values`, checks the rules there, and only then replaces `values`.
    func apply(to values: inout ContextValues) throws(ContextError) {
        var changed = values
        for assign in assignments { assign(&changed) }
        let broken = rules.filter { !$0.isKept(changed) }
        guard broken.isEmpty else {
            throw ContextError.invalidConfiguration(broken.map { .rule($0.description) }, searched: searched)
        }
        values = changed
    }
}

/// A rule over the values once set: what it says, and whether the values keep it.
struct ConfigurationRule: Sendable {
    let description: String
    let isKept: @Sendable (ContextValues) -> Bool
}

/// What made a source's configuration invalid: a read that failed, or a rule broken.
enum ConfigurationFailure {
    case read(name: String, valueType: String, error: any Error)
    case rule(String)
}
