// `BootReport`: what validating a context built, how long each factory took, and the dependency graph.

// MARK: - BootReport

/// What ``Context/bootReport(deadline:)`` found: every provider the context sees, how long each factory
/// took, which providers it resolved (the edges of the dependency graph), totals, and the problems
/// ``Context/prepare()`` reports.
///
/// ```swift
/// let report = await app.bootReport()
/// print(report.totals.providers, report.totals.longestPath)
/// try report.write(toFile: "boot-report.json")
/// ```
///
/// It is `Codable`, with the stable field names its JSON form documents (see ``json``), and it carries
/// its ``formatVersion``: a report of another version is refused as a baseline.
public struct BootReport: Sendable, Codable, Hashable {
    /// The version of the report's format that this library writes and reads.
    ///
    /// ```swift
    /// BootReport.currentFormatVersion  // 1
    /// ```
    public static let currentFormatVersion = 1

    /// The version of the format this report was written in (JSON field `formatVersion`).
    ///
    /// ```swift
    /// report.formatVersion == BootReport.currentFormatVersion  // true for a report made here
    /// ```
    public var formatVersion: Int

    /// The name of the context validated (`context`).
    ///
    /// ```swift
    /// report.context  // "app"
    /// ```
    public var context: String

    /// Every provider the context sees, and the providers built on their behalf that it does not
    /// (`providers`), in a stable order: by ``Provider/id``.
    ///
    /// ```swift
    /// for provider in report.providers { print(provider.id, provider.ownSeconds) }
    /// ```
    public var providers: [Provider]

    /// The problems validation found (`problems`): what ``Context/prepare()`` would have thrown, one per
    /// cause, plus a build still running at the deadline.
    ///
    /// ```swift
    /// if !report.problems.isEmpty { print(report.problems.map(\.message)) }
    /// ```
    public var problems: [Problem]

    /// The totals (`totals`).
    ///
    /// ```swift
    /// report.totals.builds
    /// ```
    public var totals: Totals

    /// Makes a report; ``Context/bootReport(deadline:)`` makes them, and tests may build one by hand.
    ///
    /// ```swift
    /// let empty = BootReport(context: "app", providers: [], problems: [], totals: .init())
    /// ```
    public init(
        formatVersion: Int = BootReport.currentFormatVersion,
        context: String,
        providers: [Provider],
        problems: [Problem],
        totals: Totals
    ) {
        self.formatVersion = formatVersion
        self.context = context
        self.providers = providers
        self.problems = problems
        self.totals = totals
    }

    /// Whether validation found no problem and every build finished.
    ///
    /// ```swift
    /// #expect(report.isValid)
    /// ```
    public var isValid: Bool { problems.isEmpty && !providers.contains { $0.status == .building } }

    /// The provider whose ``Provider/id`` or ``Provider/name`` is `name`, if any.
    ///
    /// ```swift
    /// report.provider(named: "Database")?.ownSeconds
    /// ```
    public func provider(named name: String) -> Provider? {
        providers.first { $0.id == name } ?? providers.first { $0.name == name }
    }

    // MARK: - Provider

    /// One provider: what it is, who registered it, how its builds went, and what it resolved.
    ///
    /// ```swift
    /// let database = report.provider(named: "Database")!
    /// print(database.lifetime, database.wallSeconds, database.dependencies)
    /// ```
    public struct Provider: Sendable, Codable, Hashable {
        /// The provider's name in the report and the graph, e.g. `Database (singleton)`; unique in a
        /// report (a second provider of the same label gets ` #2`). Field `id`.
        ///
        /// ```swift
        /// provider.id  // "Database (singleton)"
        /// ```
        public var id: String
        /// The type or key it is registered under, as Swift prints it (`name`).
        ///
        /// ```swift
        /// provider.name  // "Database"
        /// ```
        public var name: String
        /// Its lifetime: `singleton`, `scoped` or `transient` (`lifetime`).
        ///
        /// ```swift
        /// provider.lifetime  // "singleton"
        /// ```
        public var lifetime: String
        /// The name of the context that registered it (`registrar`), or `nil` when it is unknown.
        ///
        /// ```swift
        /// provider.registrar  // "app"
        /// ```
        public var registrar: String?
        /// How its builds ended (`status`).
        ///
        /// ```swift
        /// provider.status == .built
        /// ```
        public var status: Status
        /// How many times its factory ran during validation (`builds`).
        ///
        /// ```swift
        /// provider.builds  // 1 for a singleton
        /// ```
        public var builds: Int
        /// The wall time of its factory calls, in seconds, nested builds included (`wallSeconds`); for a
        /// build still running, up to the deadline.
        ///
        /// ```swift
        /// provider.wallSeconds  // 0.0123
        /// ```
        public var wallSeconds: Double
        /// The part of ``wallSeconds`` spent building the providers it resolved (`nestedSeconds`).
        ///
        /// ```swift
        /// provider.nestedSeconds
        /// ```
        public var nestedSeconds: Double
        /// Its own time: ``wallSeconds`` minus ``nestedSeconds`` (`ownSeconds`).
        ///
        /// ```swift
        /// provider.ownSeconds
        /// ```
        public var ownSeconds: Double
        /// The ``id``s of the providers its factory resolved, built then or before, sorted: the edges of
        /// the dependency graph (`dependencies`).
        ///
        /// ```swift
        /// provider.dependencies  // ["Config (singleton)"]
        /// ```
        public var dependencies: [String]
        /// What its last failed build threw, if it failed or was still running (`failure`).
        ///
        /// ```swift
        /// provider.failure  // "connection refused"
        /// ```
        public var failure: String?

        /// Makes a provider entry.
        ///
        /// ```swift
        /// let entry = BootReport.Provider(id: "A (singleton)", name: "A", lifetime: "singleton")
        /// ```
        public init(
            id: String,
            name: String,
            lifetime: String,
            registrar: String? = nil,
            status: Status = .built,
            builds: Int = 1,
            wallSeconds: Double = 0,
            nestedSeconds: Double = 0,
            dependencies: [String] = [],
            failure: String? = nil
        ) {
            self.id = id
            self.name = name
            self.lifetime = lifetime
            self.registrar = registrar
            self.status = status
            self.builds = builds
            self.wallSeconds = wallSeconds
            self.nestedSeconds = nestedSeconds
            self.ownSeconds = max(0, wallSeconds - nestedSeconds)
            self.dependencies = dependencies
            self.failure = failure
        }
    }

    // MARK: - Status

    /// How a provider's builds during validation ended.
    ///
    /// ```swift
    /// switch provider.status { case .built: …; case .failed, .building: …; case .notBuilt: … }
    /// ```
    public enum Status: String, Sendable, Codable, Hashable {
        /// Its factory ran and returned.
        case built
        /// Its factory threw, or it could not be built (a missing dependency, a cycle): see
        /// ``BootReport/problems``.
        case failed
        /// Its factory was still running at the report's deadline.
        case building
        /// Its factory did not run: a singleton already built before the report, or a provider whose
        /// resolve failed before its factory ran.
        case notBuilt
    }

    // MARK: - Problem

    /// A problem validation found, as ``ContextError`` reports it.
    ///
    /// ```swift
    /// report.problems.first?.code  // "factoryFailed"
    /// ```
    public struct Problem: Sendable, Codable, Hashable {
        /// The ``ContextError/Code``'s name (`code`).
        ///
        /// ```swift
        /// problem.code  // "missingObject"
        /// ```
        public var code: String
        /// The type or provider concerned, if any (`requestedType`).
        ///
        /// ```swift
        /// problem.requestedType  // "Database"
        /// ```
        public var requestedType: String?
        /// The full explanation, with its fix (`message`).
        ///
        /// ```swift
        /// print(problem.message)
        /// ```
        public var message: String
        /// The providers being built, outermost first (`resolutionPath`).
        ///
        /// ```swift
        /// problem.resolutionPath  // ["A (singleton)", "B (singleton)", "A (singleton)"]
        /// ```
        public var resolutionPath: [String]

        /// Makes a problem from what a context reported.
        ///
        /// ```swift
        /// let problem = BootReport.Problem(error)
        /// ```
        public init(_ error: ContextError) {
            code = error.code.description
            requestedType = error.requestedType
            message = error.message
            resolutionPath = error.resolutionPath
        }

        init(code: String, requestedType: String?, message: String, resolutionPath: [String]) {
            self.code = code
            self.requestedType = requestedType
            self.message = message
            self.resolutionPath = resolutionPath
        }
    }

    // MARK: - Totals

    /// The report's totals.
    ///
    /// ```swift
    /// print("\(report.totals.providers) providers, \(report.totals.bootSeconds) s")
    /// ```
    public struct Totals: Sendable, Codable, Hashable {
        /// The providers in the report (`providers`).
        ///
        /// ```swift
        /// report.totals.providers
        /// ```
        public var providers: Int
        /// The factory calls made (`builds`).
        ///
        /// ```swift
        /// report.totals.builds
        /// ```
        public var builds: Int
        /// The edges of the dependency graph (`edges`).
        ///
        /// ```swift
        /// report.totals.edges
        /// ```
        public var edges: Int
        /// The providers on the longest dependency path (`longestPath`): 1 when nothing depends on
        /// anything, 0 for no provider.
        ///
        /// ```swift
        /// report.totals.longestPath  // 3 for App → Service → Database
        /// ```
        public var longestPath: Int
        /// That path's provider ``Provider/id``s, outermost first (`longestPathProviders`).
        ///
        /// ```swift
        /// report.totals.longestPathProviders.joined(separator: " → ")
        /// ```
        public var longestPathProviders: [String]
        /// The wall time of the whole validation, in seconds (`bootSeconds`); the deadline when it was
        /// reached.
        ///
        /// ```swift
        /// report.totals.bootSeconds
        /// ```
        public var bootSeconds: Double

        /// Makes totals.
        ///
        /// ```swift
        /// let none = BootReport.Totals()
        /// ```
        public init(
            providers: Int = 0,
            builds: Int = 0,
            edges: Int = 0,
            longestPath: Int = 0,
            longestPathProviders: [String] = [],
            bootSeconds: Double = 0
        ) {
            self.providers = providers
            self.builds = builds
            self.edges = edges
            self.longestPath = longestPath
            self.longestPathProviders = longestPathProviders
            self.bootSeconds = bootSeconds
        }
    }
}
