// How many configurations the server applied, and how many it did not.

import Contextual
import Synchronization

// MARK: - ConfigurationReloads

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

    /// Configurations applied: the one the server booted with, then each that changed the settings.
    ///
    /// ```swift
    /// if reloads.applied > 1 { print("reloaded") }
    /// ```
    public var applied: Int { counts.withLock { $0.applied } }

    /// Configurations not applied: a value missing or invalid, or a rule of the mapping broken.
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
