// The server's settings from swift-configuration: a JSON file, reloaded when it changes, under the
// environment variables that override it; applied to the app context whole, or not at all.

import Configuration
import Contextual
import Logging
import ServiceLifecycle
import Synchronization
import SystemPackage

// MARK: - What the server reads

extension ServerConfig {
    /// The settings the server reads from its configuration, and the rule they keep. The database path is
    /// not among them: it is chosen at boot, on the command line.
    ///
    /// ```swift
    /// try app.update(from: reader.snapshot(), with: ServerConfig.mapping)
    /// ```
    public static let mapping: ConfigurationMapping<ConfigSnapshotReader> = {
        var mapping = ConfigurationMapping<ConfigSnapshotReader>()
        mapping.map("greeting", to: \.serverConfig.greeting) { try $0.requiredString(forKey: "greeting") }
        mapping.map("todos.maxTitleLength", to: \.serverConfig.maxTitleLength) {
            try $0.requiredInt(forKey: "todos.maxTitleLength")
        }
        mapping.check("todos.maxTitleLength is between 1 and 4096") {
            (1...4096).contains($0.serverConfig.maxTitleLength)
        }
        return mapping
    }()
}

// MARK: - Where it comes from

/// Where the server's settings come from, and what must run to keep them current.
///
/// ```swift
/// let source = try await ConfigurationSource.file("config.json", logger: logger)
/// let (app, application) = try await buildApplication(config: config, configuration: source)
/// ```
public struct ConfigurationSource: Sendable {
    /// The settings, as swift-configuration reads them.
    public let reader: ConfigReader
    /// What keeps `reader` current (the file's polling), run with the server.
    public let services: [any Service]

    /// A JSON file, checked every `pollInterval` and reloaded when it changes, under the process's
    /// environment variables when `overriddenByEnvironment` (`GREETING`, `TODOS_MAXTITLELENGTH`). A file
    /// that cannot be read or parsed during a reload (a write in progress) is skipped: the last one read
    /// stays until the file is whole again.
    ///
    /// ```swift
    /// let source = try await ConfigurationSource.file("/etc/todo/config.json", logger: logger)
    /// ```
    public static func file(
        _ path: String,
        pollInterval: Duration = .seconds(15),
        overriddenByEnvironment: Bool = true,
        logger: Logger
    ) async throws -> ConfigurationSource {
        let file = try await ReloadingFileProvider<JSONSnapshot>(
            filePath: FilePath(path),
            pollInterval: pollInterval,
            logger: logger
        )
        let providers: [any ConfigProvider] = overriddenByEnvironment ? [EnvironmentVariablesProvider(), file] : [file]
        return ConfigurationSource(reader: ConfigReader(providers: providers), services: [file])
    }
}

// MARK: - Keeping the app context current

/// How many configurations were applied to the app context, and how many were not (with the last
/// error), since the server started: a counter for a health or metrics endpoint.
///
/// ```swift
/// let reloads = ConfigurationReloads()
/// print(reloads.applied, reloads.rejected, reloads.lastError ?? "none")
/// ```
public final class ConfigurationReloads: Sendable {
    private let counts = Mutex<(applied: Int, rejected: Int, lastError: String?)>((0, 0, nil))

    /// Makes the counters, at zero.
    ///
    /// ```swift
    /// let reloads = ConfigurationReloads()
    /// ```
    public init() {}

    /// Configurations applied, the first one at boot included.
    ///
    /// ```swift
    /// if reloads.applied > 1 { print("reloaded") }
    /// ```
    public var applied: Int { counts.withLock { $0.applied } }

    /// Configurations not applied, because a value was missing or invalid.
    ///
    /// ```swift
    /// if reloads.rejected > 0 { print(reloads.lastError ?? "") }
    /// ```
    public var rejected: Int { counts.withLock { $0.rejected } }

    /// Why the last configuration not applied was not: the ``Contextual/ContextError`` message.
    ///
    /// ```swift
    /// print(reloads.lastError ?? "every configuration was applied")
    /// ```
    public var lastError: String? { counts.withLock { $0.lastError } }

    func recordApplied() { counts.withLock { $0.applied += 1 } }

    func recordRejected(_ error: ContextError) {
        counts.withLock {
            $0.rejected += 1
            $0.lastError = error.message
        }
    }
}

/// The context each request's scope starts from: a child of the app context that holds the settings of
/// one configuration. Each change of the app context's settings makes a new one, so that a request
/// already running keeps the settings it started with, and the next request starts from the new ones;
/// nothing is copied per request.
///
/// ```swift
/// let base = RequestBase(app: app)
/// let scope = RequestScope(of: base.context, requestID: id) { values, id in values.requestID = id }
/// ```
public final class RequestBase: Sendable {
    private let current: Mutex<Context>
    private let renewal: Mutex<ObservationToken?> = Mutex(nil)

    /// Starts from `app`'s settings, and follows them.
    ///
    /// ```swift
    /// let base = RequestBase(app: app)
    /// ```
    public init(app: Context) {
        current = Mutex(Self.holdingSettings(of: app))
        let token = app.observe(\.serverConfig) { [weak self, weak app] _ in
            guard let self, let app else { return }
            let next = Self.holdingSettings(of: app)
            current.withLock { $0 = next }
        }
        renewal.withLock { $0 = token }
    }

    /// The context a request's scope starts from now.
    ///
    /// ```swift
    /// let parent = base.context
    /// ```
    public var context: Context { current.withLock { $0 } }

    /// A child of `app` holding the settings `app` has now: an update of `app` does not reach it.
    private static func holdingSettings(of app: Context) -> Context {
        app.child(name: "settings") { $0.serverConfig = $0.serverConfig }
    }
}

/// Applies each new configuration to the app context, in one update, as the reader sees it change: new
/// requests read it, requests already running keep what they started with (see ``RequestBase``), and
/// observers of the settings are told. A configuration with a missing or invalid value changes nothing:
/// the last good one stays, and the error goes to the log and ``ConfigurationReloads``.
///
/// ```swift
/// let service = ConfigurationReloadService(app: app, reader: source.reader, reloads: reloads, logger: logger)
/// ```
public struct ConfigurationReloadService: Service {
    let app: Context
    let reader: ConfigReader
    let reloads: ConfigurationReloads
    let logger: Logger

    /// Makes the service for `app`, reading `reader`.
    ///
    /// ```swift
    /// let service = ConfigurationReloadService(app: app, reader: reader, reloads: reloads, logger: logger)
    /// ```
    public init(app: Context, reader: ConfigReader, reloads: ConfigurationReloads, logger: Logger) {
        self.app = app
        self.reader = reader
        self.reloads = reloads
        self.logger = logger
    }

    /// Applies every configuration the reader sees until the server shuts down.
    ///
    /// ```swift
    /// try await service.run()
    /// ```
    public func run() async throws {
        try await cancelWhenGracefulShutdown { [self] in
            try await reader.watchSnapshot { snapshots in
                for await snapshot in snapshots { apply(snapshot) }
            }
        }
    }

    /// Applies `snapshot`, or logs and counts why not.
    ///
    /// ```swift
    /// service.apply(reader.snapshot())
    /// ```
    public func apply(_ snapshot: ConfigSnapshotReader) {
        do {
            try app.update(from: snapshot, with: ServerConfig.mapping)
            reloads.recordApplied()
        } catch {
            reloads.recordRejected(error)
            logger.error("configuration not applied: \(error.message)")
        }
    }
}
