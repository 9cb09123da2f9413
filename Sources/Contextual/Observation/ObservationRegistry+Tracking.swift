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
    private let state = Locked<State>.make(State())

    private struct State {
        var cancelled = false
        var current: OneShotSubscriber?
        /// Whether a thread is reading and delivering (``changed()``): one at a time.
        var delivering = false
        /// Whether a change came while it did: it reads and delivers again, so that the newest value is
        /// delivered last.
        var changedAgain = false
    }

    init(apply: @escaping @Sendable () -> Value, onChange: @escaping @Sendable (Value) -> Void) {
        self.apply = apply
        self.onChange = onChange
    }

    func arm(deliver: Bool) {
        if state.withLock({ $0.cancelled }) { return }
        let (value, accesses) = ObservationRecorder.record(apply)
        let subscriber = OneShotSubscriber { [weak self] in self?.changed() }
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

    /// Reads and delivers the value after a change, on the thread that changed it, one thread at a time:
    /// a change while another thread delivers has that thread read and deliver once more when its
    /// handler returns, so that the handler never runs twice at once and its last call has the newest
    /// value.
    func changed() {
        let runs = state.withLock { state -> Bool in
            if state.delivering {
                state.changedAgain = true
                return false
            }
            state.delivering = true
            return true
        }
        guard runs else { return }
        repeat {
            state.withLock { $0.changedAgain = false }
            arm(deliver: true)
        } while state.withLock { state -> Bool in
            if state.changedAgain && !state.cancelled { return true }
            state.delivering = false
            return false
        }
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
