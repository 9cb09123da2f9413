// `date`: the generator of the current date; the system's time live, a fixed date in tests.

// MARK: - Date

extension ContextValues {
    /// Where the current date comes from: the system's time unless set; in a test context always
    /// ``DateGenerator/testDate``.
    ///
    /// ```swift
    /// let createdAt = Context.current[\.date].now
    /// ```
    public var date: DateGenerator {
        get { self[DateGeneratorKey.self] }
        set { self[DateGeneratorKey.self] = newValue }
    }
}

/// The key of ``ContextValues/date``.
enum DateGeneratorKey: ContextKey {
    static var defaultValue: DateGenerator { .system }
    static var testValue: DateGenerator { .constant(DateGenerator.testDate) }
}
