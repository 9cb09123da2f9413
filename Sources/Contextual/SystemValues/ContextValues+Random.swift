// `random`: the random number generator; the system's live, seeded in tests.

// MARK: - Random

extension ContextValues {
    /// The random number generator to draw with: the system's unless set; in a test context one seeded
    /// with ``RandomSource/testSeed``, afresh for each test context.
    ///
    /// ```swift
    /// var random = Context.current[\.random]
    /// let delay = Double.random(in: 0...1, using: &random)
    /// ```
    public var random: RandomSource {
        get { self[RandomSourceKey.self] }
        set { self[RandomSourceKey.self] = newValue }
    }
}

/// The key of ``ContextValues/random``.
enum RandomSourceKey: ContextKey {
    static var defaultValue: RandomSource { .system }
    static var testValue: RandomSource { .seeded(RandomSource.testSeed) }
}
