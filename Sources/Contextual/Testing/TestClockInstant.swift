// `TestClockInstant`: the instant of the test clocks, `ManualClock` and `ImmediateClock`: a time since a start.

// MARK: - TestClockInstant

/// A point in a test clock's time: the time elapsed since the clock was made. ``ManualClock`` and
/// ``ImmediateClock`` share it (each clock's `Instant` is this type). Compare instants of one clock:
/// instants of two test clocks are offsets from two unrelated starts, which the type cannot tell apart,
/// so comparing them compares the offsets only.
///
/// ```swift
/// let clock = ManualClock()
/// let start = clock.now
/// clock.advance(by: .seconds(5))
/// start.duration(to: clock.now)  // 5 seconds
/// ```
public struct TestClockInstant: InstantProtocol, Sendable, Hashable {
    /// The time since the clock's start.
    ///
    /// ```swift
    /// TestClockInstant(offset: .seconds(1)).offset  // 1 second
    /// ```
    public var offset: Duration

    /// Makes the instant `offset` after the clock's start.
    ///
    /// ```swift
    /// let start = TestClockInstant()
    /// ```
    ///
    /// - Parameter offset: The time since the clock's start.
    public init(offset: Duration = .zero) {
        self.offset = offset
    }

    /// The instant `duration` later.
    ///
    /// ```swift
    /// clock.now.advanced(by: .seconds(5))
    /// ```
    ///
    /// - Parameter duration: The time to add.
    /// - Returns: The instant `duration` after this one.
    public func advanced(by duration: Duration) -> TestClockInstant {
        TestClockInstant(offset: offset + duration)
    }

    /// The time from this instant to `other`.
    ///
    /// ```swift
    /// start.duration(to: clock.now)  // the time advanced or slept since `start`
    /// ```
    ///
    /// - Parameter other: A later (or earlier) instant.
    /// - Returns: The duration from this instant to `other`.
    public func duration(to other: TestClockInstant) -> Duration {
        other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    ///
    /// ```swift
    /// TestClockInstant() < TestClockInstant(offset: .seconds(1))  // true
    /// ```
    public static func < (lhs: TestClockInstant, rhs: TestClockInstant) -> Bool {
        lhs.offset < rhs.offset
    }
}
