import Contextual

// MARK: - Container value keys

enum DisplayNameKey: ContainerValueKey {
    static var defaultValue: String { "unnamed module" }
}

enum PriorityKey: ContainerValueKey {
    static var defaultValue: Int { 0 }
}

extension ContainerValues {
    var displayName: String {
        get { self[DisplayNameKey.self] }
        set { self[DisplayNameKey.self] = newValue }
    }

    var priority: Int {
        get { self[PriorityKey.self] }
        set { self[PriorityKey.self] = newValue }
    }
}

// MARK: - Preference keys

enum RoutesKey: ArrayContributionKey {
    typealias Element = String
}

enum ScopesKey: SetContributionKey {
    typealias Element = String
}

enum PoolSizeKey: SumPreferenceKey {
    typealias Value = Int
}

enum HomePageKey: FirstValuePreferenceKey {
    typealias Wrapped = String
}

enum LogLevelOverrideKey: LastValuePreferenceKey {
    typealias Wrapped = String
}

enum HealthChecksKey: DictionaryContributionKey {
    typealias EntryKey = String
    typealias EntryValue = String
}

/// A custom reducer: the largest value wins. Its default, `Int.min`, keeps the rule.
enum MaxTimeoutKey: PreferenceKey {
    static var defaultValue: Int { .min }
    static func reduce(value: inout Int, nextValue: () -> Int) { value = max(value, nextValue()) }
}

extension PreferenceValues {
    var routes: [String] {
        get { self[RoutesKey.self] }
        set { self[RoutesKey.self] = newValue }
    }

    var oauthScopes: Set<String> {
        get { self[ScopesKey.self] }
        set { self[ScopesKey.self] = newValue }
    }

    var poolSize: Int {
        get { self[PoolSizeKey.self] }
        set { self[PoolSizeKey.self] = newValue }
    }

    var homePage: String? {
        get { self[HomePageKey.self] }
        set { self[HomePageKey.self] = newValue }
    }

    var logLevelOverride: String? {
        get { self[LogLevelOverrideKey.self] }
        set { self[LogLevelOverrideKey.self] = newValue }
    }

    var healthChecks: Contributions<String, String> {
        get { self[HealthChecksKey.self] }
        set { self[HealthChecksKey.self] = newValue }
    }

    var maxTimeout: Int {
        get { self[MaxTimeoutKey.self] }
        set { self[MaxTimeoutKey.self] = newValue }
    }
}
