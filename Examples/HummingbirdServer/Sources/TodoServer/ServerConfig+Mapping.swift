// What the server reads from its configuration: the keys, the values they set, the rule they keep.

import Configuration
import Contextual

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
        mapping.map("greeting", to: \.serverConfig.greeting) { snapshot, key in
            try snapshot.requiredString(forKey: ConfigKey(key))
        }
        mapping.map("todos.maxTitleLength", to: \.serverConfig.maxTitleLength) { snapshot, key in
            try snapshot.requiredInt(forKey: ConfigKey(key))
        }
        mapping.check("todos.maxTitleLength is between 1 and 4096") {
            (1...4096).contains($0.serverConfig.maxTitleLength)
        }
        return mapping
    }()
}
