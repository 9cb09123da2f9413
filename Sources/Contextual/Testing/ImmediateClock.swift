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
    /// A point in an ``ImmediateClock``'s time: the time elapsed since the clock was made.
    ///
    /// ```swift
    /// clock.now.offset  // .zero, then the sum of the sleeps
    /// ```
    public struct Instant: InstantProtocol, Sendable, Hashable {
        /// The time since the clock's start.
        ///
        /// ```swift
        /// ImmediateClock.Instant(offset: .seconds(1)).offset  // 1 second
        /// ```
        public var offset: Duration

        /// Makes the instant `offset` after the clock's start.
        ///
        /// ```swift
        /// let start = ImmediateClock.Instant()
        /// ```
        public init(offset: Duration = .zero) {
            self.offset = offset
        }

        /// The instant `duration` later.
        ///
        /// ```swift
        /// clock.now.advanced(by: .seconds(5))
        /// ```
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        ///
        /// ```swift
        /// start.duration(to: clock.now)  // the time slept since `start`
        /// ```
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether `lhs` comes before `rhs`.
        ///
        /// ```swift
        /// ImmediateClock.Instant() < ImmediateClock.Instant(offset: .seconds(1))  // true
        /// ```
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

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
