// An immediate clock and a capturing output: the tool's tests use them, and so can the tool (`--dry-run`).
// Contextual is adding its own (issue 15); until then they are written once, here.

import Synchronization

/// A clock whose `sleep` returns at once, advancing its `now` by the time asked, and recording each wait.
///
/// ```swift
/// let clock = ImmediateClock()
/// try await clock.sleep(for: .seconds(5))  // returns at once
/// clock.sleeps  // [5 seconds]
/// ```
public final class ImmediateClock: Clock, Sendable {
    /// A point in this clock's time: how long after its start.
    public struct Instant: InstantProtocol {
        /// The time since the clock's start.
        public var offset: Duration

        /// The instant `duration` later.
        ///
        /// ```swift
        /// clock.now.advanced(by: .seconds(1))
        /// ```
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The time from this instant to `other`.
        ///
        /// ```swift
        /// start.duration(to: clock.now)
        /// ```
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Orders instants by time.
        ///
        /// ```swift
        /// start < clock.now
        /// ```
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleeps: [Duration] = []
    }
    private let state = Mutex(State())

    /// Makes a clock at its start.
    ///
    /// ```swift
    /// let clock = ImmediateClock()
    /// ```
    public init() {}

    /// The current instant: the start plus every wait so far.
    ///
    /// ```swift
    /// clock.now.offset  // the total time waited
    /// ```
    public var now: Instant { state.withLock { $0.now } }

    /// No resolution limit.
    ///
    /// ```swift
    /// clock.minimumResolution  // .zero
    /// ```
    public var minimumResolution: Duration { .zero }

    /// Every wait asked for, in order.
    ///
    /// ```swift
    /// #expect(clock.sleeps == [.milliseconds(200), .milliseconds(400)])
    /// ```
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Returns at once (throwing if the task is cancelled), moving `now` to `deadline`.
    ///
    /// ```swift
    /// try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
    /// ```
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
            if deadline > state.now { state.now = deadline }
        }
    }
}

/// Collects the lines written to its ``sink``.
///
/// ```swift
/// let captured = CapturingOutput()
/// let test = Context(name: "test") { $0.output = captured.sink }
/// captured.lines  // what the library wrote
/// ```
public final class CapturingOutput: Sendable {
    private let captured = Mutex<[String]>([])

    /// Makes an empty capture.
    ///
    /// ```swift
    /// let captured = CapturingOutput()
    /// ```
    public init() {}

    /// The sink that appends to ``lines``.
    ///
    /// ```swift
    /// $0.output = captured.sink
    /// ```
    public var sink: OutputSink { OutputSink { line in self.captured.withLock { $0.append(line) } } }

    /// The lines written so far, in order.
    ///
    /// ```swift
    /// #expect(captured.lines == ["fetch: succeeded on attempt 1"])
    /// ```
    public var lines: [String] { captured.withLock { $0 } }
}
