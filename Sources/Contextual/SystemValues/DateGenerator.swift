// `DateGenerator`: what a context reads the current date from; the system's clock live, a fixed date in tests.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - DateGenerator

/// A source of the current date, read from ``ContextValues/date``: the system's time unless set, a fixed
/// date (``DateGenerator/testDate``) in a test context.
///
/// ```swift
/// let stamp = Context.current[\.date].now
/// let test = Context.testing { $0.date = .constant(Date(timeIntervalSince1970: 0)) }
/// ```
public struct DateGenerator: Sendable {
    private let generate: @Sendable () -> Date

    /// Makes a generator that calls `generate` for each date.
    ///
    /// ```swift
    /// let generator = DateGenerator { Date().addingTimeInterval(3600) }
    /// ```
    ///
    /// - Parameter generate: Returns the current date.
    public init(_ generate: @escaping @Sendable () -> Date) {
        self.generate = generate
    }

    /// The current date.
    ///
    /// ```swift
    /// let createdAt = Context.current[\.date].now
    /// ```
    public var now: Date { generate() }

    /// The current date, as ``now``.
    ///
    /// ```swift
    /// let createdAt = Context.current[\.date]()
    /// ```
    ///
    /// - Returns: The current date.
    public func callAsFunction() -> Date { generate() }

    /// The system's time.
    ///
    /// ```swift
    /// DateGenerator.system.now  // now
    /// ```
    public static var system: DateGenerator { DateGenerator { Date() } }

    /// Always `date`.
    ///
    /// ```swift
    /// DateGenerator.constant(Date(timeIntervalSince1970: 0)).now  // 1970-01-01T00:00:00Z
    /// ```
    ///
    /// - Parameter date: The date every read returns.
    /// - Returns: A generator of `date`.
    public static func constant(_ date: Date) -> DateGenerator { DateGenerator { date } }

    /// The date a test context reads: 2001-01-01T00:00:00Z (`Date(timeIntervalSinceReferenceDate: 0)`).
    ///
    /// ```swift
    /// Context.testing()[\.date].now == DateGenerator.testDate  // true
    /// ```
    public static var testDate: Date { Date(timeIntervalSinceReferenceDate: 0) }
}
