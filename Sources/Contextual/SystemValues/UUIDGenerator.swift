// `UUIDGenerator`: what a context makes identifiers with; random live, incrementing in tests.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - UUIDGenerator

/// A source of UUIDs, read from ``ContextValues/uuid``: random (version 4) unless set, incrementing from
/// `00000000-0000-0000-0000-000000000000` in a test context.
///
/// ```swift
/// let id = Context.current[\.uuid]()
/// ```
public struct UUIDGenerator: Sendable {
    private let generate: @Sendable () -> UUID

    /// Makes a generator that calls `generate` for each UUID.
    ///
    /// ```swift
    /// let generator = UUIDGenerator { UUID() }
    /// ```
    ///
    /// - Parameter generate: Returns a new UUID.
    public init(_ generate: @escaping @Sendable () -> UUID) {
        self.generate = generate
    }

    /// A new UUID.
    ///
    /// ```swift
    /// let id = Context.current[\.uuid]()
    /// ```
    ///
    /// - Returns: The next UUID.
    public func callAsFunction() -> UUID { generate() }

    /// Random UUIDs (version 4).
    ///
    /// ```swift
    /// UUIDGenerator.random()  // a fresh random UUID
    /// ```
    public static var random: UUIDGenerator { UUIDGenerator { UUID() } }

    /// UUIDs counting up from `start`: `00000000-0000-0000-0000-000000000000`, then `…0001`, and so on.
    /// Copies share the count.
    ///
    /// ```swift
    /// let ids = UUIDGenerator.incrementing()
    /// ids().uuidString  // "00000000-0000-0000-0000-000000000000"
    /// ids().uuidString  // "00000000-0000-0000-0000-000000000001"
    /// ```
    ///
    /// - Parameter start: The number of the first UUID.
    /// - Returns: A generator of incrementing UUIDs.
    public static func incrementing(from start: UInt64 = 0) -> UUIDGenerator {
        let counter = Locked.make(start)
        return UUIDGenerator {
            let n = counter.withLock { count in
                defer { count &+= 1 }
                return count
            }
            func byte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: n >> (8 * (7 - index))) }
            return UUID(
                uuid: (0, 0, 0, 0, 0, 0, 0, 0, byte(0), byte(1), byte(2), byte(3), byte(4), byte(5), byte(6), byte(7))
            )
        }
    }
}
