import Contextual

// MARK: - Modules

/// What a module says about itself, for the app that hosts it to list: a container value.
enum ModuleSummaryKey: ContainerValueKey {
    static var defaultValue: String { "no summary" }
}

/// The routes modules contribute to the app.
enum RoutesKey: ArrayContributionKey {
    typealias Element = String
}

/// The health checks modules contribute to the app, by name; a name given twice is an error.
enum HealthChecksKey: DictionaryContributionKey {
    typealias EntryKey = String
    typealias EntryValue = HealthCheck
}

/// A check that a module's dependencies answer.
struct HealthCheck: Sendable {
    let check: @Sendable (ConnectionPool) async -> Bool
}

extension ContainerValues {
    var summary: String {
        get { self[ModuleSummaryKey.self] }
        set { self[ModuleSummaryKey.self] = newValue }
    }
}

extension PreferenceValues {
    var routes: [String] {
        get { self[RoutesKey.self] }
        set { self[RoutesKey.self] = newValue }
    }

    var healthChecks: Contributions<String, HealthCheck> {
        get { self[HealthChecksKey.self] }
        set { self[HealthChecksKey.self] = newValue }
    }
}
