// `ManualClock`: a clock whose time moves only when a test advances it, waking the sleeps it passes.

// MARK: - ManualClock

/// A clock whose time stands still until ``advance(by:)`` moves it: a sleep returns when the clock
/// reaches its deadline, so a test decides exactly when timers, timeouts and retries fire.
///
/// ```swift
/// let clock = ManualClock()
/// let timer = Task { try await clock.sleep(for: .seconds(5)) }
/// while clock.sleeperCount == 0 { await Task.yield() }
/// clock.advance(by: .seconds(5))  // the timer's sleep returns
/// ```
///
/// A cancelled sleep throws `CancellationError` at once. It is a reference: copies share their time.
public final class ManualClock: Clock, Sendable {
    /// A point in the clock's time: the time advanced since the clock was made, as a ``TestClockInstant``,
    /// the instant ``ManualClock`` and ``ImmediateClock`` share.
    ///
    /// ```swift
    /// ManualClock().now.offset  // .zero
    /// ```
    public typealias Instant = TestClockInstant

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<UInt64> = []
    }

    private let state: Locked<State>

    /// Makes a clock whose time starts at `now` and moves only when advanced.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// ```
    ///
    /// - Parameter now: The clock's time to start at.
    public init(now: Instant = Instant()) {
        self.state = Locked.make(State(now: now))
    }

    /// The clock's time: its start plus every advance so far.
    ///
    /// ```swift
    /// clock.advance(by: .seconds(2))
    /// clock.now.offset  // 2 seconds
    /// ```
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: any duration can be slept.
    ///
    /// ```swift
    /// clock.minimumResolution  // .zero
    /// ```
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are waiting for the clock to reach their deadlines: wait for it to grow before
    /// advancing past a sleep that another task is about to start.
    ///
    /// ```swift
    /// while clock.sleeperCount == 0 { await Task.yield() }
    /// ```
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns when the clock reaches `deadline` (at once if it has); throws `CancellationError` when the
    /// task is cancelled, at once.
    ///
    /// ```swift
    /// try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
    /// ```
    ///
    /// - Parameters:
    ///   - deadline: The instant to sleep until.
    ///   - tolerance: Ignored.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index).continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
        // A sleep that ended normally leaves no mark; one cancelled after it ended leaves one: forget it.
        _ = state.withLock { $0.cancelled.remove(id) }
    }

    /// Moves the clock's time forward by `duration`, and wakes every sleep whose deadline it reaches, in
    /// deadline order. The woken tasks run afterwards, as the executor schedules them.
    ///
    /// ```swift
    /// clock.advance(by: .seconds(5))
    /// ```
    ///
    /// - Parameter duration: How far to move the time; a negative duration does nothing.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            if duration > .zero { state.now = state.now.advanced(by: duration) }
            let now = state.now
            let woken = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return woken
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}
