// `RandomSource`: a Sendable random number generator; the system's live, seeded and reproducible in tests.

// MARK: - RandomSource

/// A random number generator that can be stored in a context and used from any thread, read from
/// ``ContextValues/random``: the system's generator unless set; in a test context one seeded with
/// ``testSeed``, so that a test draws the same numbers on every run.
///
/// ```swift
/// var random = Context.current[\.random]
/// let jitter = Int.random(in: 0..<100, using: &random)
/// ```
///
/// Copies share their state: two copies of a seeded source draw one sequence between them.
public struct RandomSource: RandomNumberGenerator, Sendable {
    private let state: Locked<UInt64>?

    private init(state: Locked<UInt64>?) {
        self.state = state
    }

    /// The system's random number generator (`SystemRandomNumberGenerator`).
    ///
    /// ```swift
    /// var random = RandomSource.system
    /// ```
    public static var system: RandomSource { RandomSource(state: nil) }

    /// A reproducible generator (SplitMix64): the same seed gives the same numbers.
    ///
    /// ```swift
    /// var random = RandomSource.seeded(42)
    /// Int.random(in: 1...6, using: &random)  // the same on every run
    /// ```
    ///
    /// - Parameter seed: The seed.
    /// - Returns: A seeded source.
    public static func seeded(_ seed: UInt64) -> RandomSource { RandomSource(state: Locked.make(seed)) }

    /// The seed of a test context's source: 0.
    ///
    /// ```swift
    /// RandomSource.testSeed  // 0
    /// ```
    public static var testSeed: UInt64 { 0 }

    /// The next 64 random bits.
    ///
    /// ```swift
    /// var random = RandomSource.seeded(1)
    /// let bits = random.next()
    /// ```
    ///
    /// - Returns: 64 random bits.
    public mutating func next() -> UInt64 {
        guard let state else {
            var system = SystemRandomNumberGenerator()
            return system.next()
        }
        var z = state.withLock { seed in
            seed &+= 0x9E37_79B9_7F4A_7C15
            return seed
        }
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
