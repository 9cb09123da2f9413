// `buildWaitLimit`: how long a resolve or a shutdown waits for another task's build before it reports it.

// MARK: - Build wait limit

extension ContextValues {
    /// How long a resolve waits for another task's build of the same object, and a scope's shutdown for
    /// a build it owns, before reporting it (``ContextError/Code/buildTimedOut``): 30 seconds unless set.
    ///
    /// A build that never ends (a factory that hangs, or a circle closed through a detached task, which
    /// does not carry the resolution path) is then reported, naming the build and who waits for it,
    /// instead of hanging. The limit that applies is the one the waiting context sees.
    ///
    /// ```swift
    /// let app = Context(name: "app") { $0.buildWaitLimit = .seconds(5) }
    /// ```
    public var buildWaitLimit: Duration {
        get { self[BuildWaitLimitKey.self] }
        set { self[BuildWaitLimitKey.self] = newValue }
    }
}

/// The key of ``ContextValues/buildWaitLimit``.
enum BuildWaitLimitKey: ContextKey {
    static var defaultValue: Duration { .seconds(30) }
}
