// `ImmediateClock`: a clock whose sleeps return at once, moving its time to their deadlines; for tests.

// MARK: - ImmediateClock

/// A clock whose `sleep` returns at once (after checking cancellation and yielding), with its `now`
/// moved to the deadline: code that waits, retries or times out runs in no time in a test.
///
/// ```swift
/// let clock: any Clock<Duration> = ImmediateClock()
/// try await clock.sleep(for: .seconds(60))  // returns at once
/// ```
///
/// It is a reference: copies share their time. The test value of a clock key is usually one.
public final class ImmediateClock: Clock, Sendable {
    /// A point in the clock's time: the time slept since the clock was made, as a ``TestClockInstant``,
    /// the instant ``ManualClock`` and ``ImmediateClock`` share.
    ///
    /// ```swift
    /// ImmediateClock().now.offset  // .zero
    /// ```
    public typealias Instant = TestClockInstant

    private let time: Locked<(now: Instant, sleeps: [Duration])>

    /// Makes a clock whose time starts at `now`.
    ///
    /// ```swift
    /// let clock = ImmediateClock()
    /// ```
    ///
    /// - Parameter now: The clock's time to start at.
    public init(now: Instant = Instant()) {
        self.time = Locked.make((now, []))
    }

    /// The clock's time: its start plus every sleep so far.
    ///
    /// ```swift
    /// try await clock.sleep(for: .seconds(2))
    /// clock.now.offset  // 2 seconds
    /// ```
    public var now: Instant { time.withLock { $0.now } }

    /// Every wait asked of the clock, in order: how far each sleep's deadline was from the clock's time
    /// (zero for a deadline already past), so that a test can assert the delays code waited for.
    ///
    /// ```swift
    /// try await clock.sleep(for: .milliseconds(200))
    /// clock.sleeps  // [200 milliseconds]
    /// ```
    public var sleeps: [Duration] { time.withLock { $0.sleeps } }

    /// Zero: any duration can be slept.
    ///
    /// ```swift
    /// clock.minimumResolution  // .zero
    /// ```
    public var minimumResolution: Duration { .zero }

    /// Moves the clock's time to `deadline` (if later) and returns at once, after a yield; throws
    /// `CancellationError` when the task is cancelled.
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
        time.withLock { time in
            time.sleeps.append(Swift.max(.zero, time.now.duration(to: deadline)))
            time.now = Swift.max(time.now, deadline)
        }
        await Task.yield()
        try Task.checkCancellation()
    }
}
