// Measuring elapsed time on the context's clock, whose instants are existentials.

// MARK: - Elapsed time between instants of one clock

extension InstantProtocol where Duration == Swift.Duration {
    /// The time from this instant to `other`, an instant of the same clock read through
    /// ``ContextValues/clock`` (an `any Clock<Duration>`, whose `now` is an existential instant): what
    /// `duration(to:)` gives between two instants of a concrete clock.
    ///
    /// ```swift
    /// let clock = Context.current[\.clock]
    /// let start = clock.now
    /// try await clock.sleep(for: .seconds(1))
    /// let elapsed = start.duration(to: clock.now)  // 1 second on an ImmediateClock
    /// ```
    ///
    /// - Parameter other: A later (or earlier) instant of the clock this one was read from.
    /// - Returns: The duration from this instant to `other`.
    /// - Precondition: `other` is an instant of the same clock type (two reads of one clock's `now` are).
    public func duration(to other: any InstantProtocol<Swift.Duration>) -> Swift.Duration {
        guard let other = other as? Self else {
            fatalError(
                "Contextual: duration(to:) between instants of two clocks (\(Self.self) and \(type(of: other))): "
                    + "read both instants from the same clock, e.g. `let clock = Context.current[\\.clock]` once."
            )
        }
        return duration(to: other)
    }
}
