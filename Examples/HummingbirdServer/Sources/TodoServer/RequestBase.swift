// Where requests start: a child of the app context per configuration, so a request keeps its settings.

import Contextual
import Synchronization

// MARK: - RequestBase

/// The context each request's scope starts from: a child of the app context that holds the mapped
/// settings (``ServerConfig/mapping``, whose values are all in `serverConfig`, which this observes) of one
/// configuration. Each change of the app context's settings
/// makes a new one, so that a request already running keeps the settings it started with, and the next
/// request starts from the new ones. Nothing is copied per request: a request pays a lock and one more
/// context in its chain.
///
/// ```swift
/// let base = RequestBase(app: app)
/// let scope = RequestScope(of: base.context, requestID: id) { values, id in values.requestID = id }
/// ```
public final class RequestBase: Sendable {
    private let current: Mutex<Context?> = Mutex(nil)
    private let renewal: Mutex<ObservationToken?> = Mutex(nil)

    /// Starts from `app`'s settings, and follows them.
    ///
    /// ```swift
    /// let base = RequestBase(app: app)
    /// ```
    public init(app: Context) {
        // The observer first, so that no change is missed; the child made under the lock, so that the
        // last change's child is the one kept when two changes are told at once.
        let token = app.observe(\.serverConfig) { [weak self, weak app] _ in
            guard let self, let app else { return }
            current.withLock { $0 = Self.holdingSettings(of: app) }
        }
        renewal.withLock { $0 = token }
        current.withLock { $0 = Self.holdingSettings(of: app) }
    }

    /// The context a request's scope starts from now.
    ///
    /// ```swift
    /// let parent = base.context
    /// ```
    public var context: Context { current.withLock { $0! } }

    /// A child of `app` holding the mapped settings `app` has now: an update of `app` does not reach it.
    private static func holdingSettings(of app: Context) -> Context {
        app.child(name: "settings") { ServerConfig.mapping.pinMappedValues(in: &$0) }
    }
}
