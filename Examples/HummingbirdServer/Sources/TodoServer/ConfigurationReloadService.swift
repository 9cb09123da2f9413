// Applying each configuration the reader sees to the app context, whole or not at all.

import Configuration
import Contextual
import Logging
import ServiceLifecycle

// MARK: - ConfigurationReloadService

/// Applies each new configuration to the app context, in one update, as the reader sees it change: new
/// requests read it, requests already running keep what they started with (see ``RequestBase``), and
/// observers of the settings are told. A configuration with a missing or invalid value, or that breaks
/// the mapping's rule, changes nothing: the last good one stays, and the error goes to the log and
/// ``ConfigurationReloads``.
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

    /// Applies every configuration the reader sees until the server shuts down (the first is the one the
    /// server booted with, unless it changed since).
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

    /// Applies `snapshot`, counting it when it changed the settings, or logs and counts why not.
    ///
    /// ```swift
    /// service.apply(reader.snapshot())
    /// ```
    public func apply(_ snapshot: ConfigSnapshotReader) {
        do {
            let before = app[\.serverConfig]
            try app.update(from: snapshot, with: ServerConfig.mapping)
            if app[\.serverConfig] != before { reloads.recordApplied() }
        } catch {
            reloads.recordRejected(error)
            logger.error("configuration not applied: \(error.message)")
        }
    }
}
