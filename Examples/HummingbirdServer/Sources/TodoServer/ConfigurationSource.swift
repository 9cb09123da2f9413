// Where the server's settings come from: a JSON file, reloaded when it changes, under environment variables.

import Configuration
import Logging
import ServiceLifecycle
import SystemPackage

// MARK: - ConfigurationSource

/// Where the server's settings come from, and what must run to keep them current.
///
/// ```swift
/// let source = try await ConfigurationSource.file("config.json", logger: logger)
/// let (app, application) = try await buildApplication(config: config, configuration: source)
/// ```
public struct ConfigurationSource: Sendable {
    /// The settings, as swift-configuration reads them.
    ///
    /// ```swift
    /// let greeting = source.reader.string(forKey: "greeting")
    /// ```
    public let reader: ConfigReader

    /// What keeps `reader` current (the file's polling), to run with the server.
    ///
    /// ```swift
    /// let group = ServiceGroup(services: source.services + [server], logger: logger)
    /// ```
    public let services: [any Service]

    /// A JSON file, checked every `pollInterval` and reloaded when it changes, under environment
    /// variables (the process's, or `environment`; `GREETING`, `TODOS_MAX_TITLE_LENGTH`) when
    /// `overriddenByEnvironment`. A file that cannot be read or parsed during a reload is skipped: the
    /// last one read stays until the file is whole again. Replace the file at once (write a new one and
    /// rename it over the old), as deployment tools and ConfigMaps do: a file caught mid-write may parse.
    ///
    /// ```swift
    /// let source = try await ConfigurationSource.file("/etc/todo/config.json", logger: logger)
    /// ```
    public static func file(
        _ path: String,
        pollInterval: Duration = .seconds(15),
        overriddenByEnvironment: Bool = true,
        environment: [String: String]? = nil,
        logger: Logger
    ) async throws -> ConfigurationSource {
        let file = try await ReloadingFileProvider<JSONSnapshot>(
            filePath: FilePath(path),
            pollInterval: pollInterval,
            logger: logger
        )
        guard overriddenByEnvironment else {
            return ConfigurationSource(reader: ConfigReader(provider: file), services: [file])
        }
        let variables =
            environment.map { EnvironmentVariablesProvider(environmentVariables: $0) } ?? EnvironmentVariablesProvider()
        return ConfigurationSource(reader: ConfigReader(providers: [variables, file]), services: [file])
    }
}
