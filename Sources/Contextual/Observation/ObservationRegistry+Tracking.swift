// Tracking: `withTracking` and `withContinuousTracking` record what a closure reads and report its changes.

// MARK: - Tracking

extension ObservationRegistry {
    /// Runs `apply`, recording the observed properties and context keys it reads, and calls `onChange`
    /// once, the first time any of them changes afterwards.
    ///
    /// ```swift
    /// let count = ObservationRegistry.withTracking {
    ///     library.books.count
    /// } onChange: {
    ///     print("the books changed")
    /// }
    /// ```
    ///
    /// `onChange` runs after the change is stored, on the writing thread, outside every lock. A change made
    /// between the read and the end of `apply` counts: `onChange` then runs at once.
    ///
    /// A static member rather than a free function, so that it never collides with a function of the
    /// same name in the code that imports Contextual (or in the toolchain's `Observation` module).
    ///
    /// - Parameters:
    ///   - apply: The reads to track; it runs once, now.
    ///   - onChange: Called once, at the first change of anything `apply` read.
    /// - Returns: What `apply` returned.
    @discardableResult
    public static func withTracking<Result>(
        _ apply: () throws -> Result,
        onChange: @escaping @Sendable () -> Void
    ) rethrows -> Result {
        let (result, accesses) = try ObservationRecorder.record(apply)
        let subscriber = OneShotSubscriber(onChange)
        let (tokens, changedSinceRead) = accesses.subscribe(subscriber)
        subscriber.attach(tokens)
        if changedSinceRead { subscriber.changed() }
        return result
    }

    /// Tracks `apply` continuously: after each change of what it read, runs it again (re-recording what it
    /// reads) and passes its new result to `onChange`, until the token is cancelled or released.
    ///
    /// ```swift
    /// let token = ObservationRegistry.withContinuousTracking {
    ///     library.books.count
    /// } onChange: { count in
    ///     print("now \(count) books")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - apply: The reads to track; it runs now and after each change of what it read.
    ///   - onChange: Called with `apply`'s new result after each change (not with the first result).
    /// - Returns: A token; cancelling or releasing it stops the tracking.
    public static func withContinuousTracking<Value: Sendable>(
        _ apply: @escaping @Sendable () -> Value,
        onChange: @escaping @Sendable (Value) -> Void
    ) -> ObservationToken {
        let tracker = ContinuousTracker(apply: apply, onChange: onChange)
        tracker.arm(deliver: false)
        return ObservationToken { tracker.cancel() }
    }
}

/// The state of one ``ObservationRegistry/withContinuousTracking(_:onChange:)``.
final class ContinuousTracker<Value: Sendable>: Sendable {
    private let apply: @Sendable () -> Value
    private let onChange: @Sendable (Value) -> Void
    private let state = Locked<(cancelled: Bool, current: OneShotSubscriber?)>.make((false, nil))

    init(apply: @escaping @Sendable () -> Value, onChange: @escaping @Sendable (Value) -> Void) {
        self.apply = apply
        self.onChange = onChange
    }

    func arm(deliver: Bool) {
        if state.withLock({ $0.cancelled }) { return }
        let (value, accesses) = ObservationRecorder.record(apply)
        let subscriber = OneShotSubscriber { [weak self] in self?.arm(deliver: true) }
        let stale = state.withLock { state -> OneShotSubscriber? in
            if state.cancelled { return subscriber }
            defer { state.current = subscriber }
            return nil
        }
        if let stale { return stale.end() }
        let (tokens, changedSinceRead) = accesses.subscribe(subscriber)
        subscriber.attach(tokens)
        if deliver { onChange(value) }
        if changedSinceRead { subscriber.changed() }
    }

    func cancel() {
        let current = state.withLock { state -> OneShotSubscriber? in
            state.cancelled = true
            defer { state.current = nil }
            return state.current
        }
        current?.end()
    }
}
