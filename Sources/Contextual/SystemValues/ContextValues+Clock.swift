// `clock`: the clock that code waits, retries and times out with; continuous live, immediate in tests.

// MARK: - Clock

extension ContextValues {
    /// The clock to sleep, retry and time out with: a `ContinuousClock` unless set; in a test context an
    /// ``ImmediateClock``, whose sleeps return at once (set a ``ManualClock`` to decide when they return).
    ///
    /// ```swift
    /// try await Context.current[\.clock].sleep(for: .seconds(2))  // no wait at all in a test
    /// let test = Context.testing { $0.clock = ManualClock() }
    /// ```
    public var clock: any Clock<Duration> {
        get { self[ClockKey.self] }
        set { self[ClockKey.self] = newValue }
    }
}

/// The key of ``ContextValues/clock``.
enum ClockKey: ContextKey {
    static var defaultValue: any Clock<Duration> { ContinuousClock() }
    static var testValue: any Clock<Duration> { ImmediateClock() }
}
