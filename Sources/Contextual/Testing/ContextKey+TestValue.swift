// The default test value of a key (its default value), and the unimplemented test value that fails a test.

// MARK: - Test values

extension ContextKey {
    /// The key's ``defaultValue``: a key reads the same in tests as in production unless it says otherwise.
    ///
    /// ```swift
    /// enum VerbosityKey: ContextKey {
    ///     static var defaultValue: Int { 0 }  // testValue is 0 too
    /// }
    /// ```
    public static var testValue: Value { defaultValue }

    /// A test value that is unimplemented: reading the key in a test context that does not set it reports
    /// the read (``UnimplementedRead``; with ContextualTesting, a test issue naming the key and the line
    /// that read it) and returns `placeholder`. In a test process, a context that is not a test context
    /// prints the report and returns `placeholder` too; a production process reads ``defaultValue``.
    ///
    /// ```swift
    /// enum PaymentsKey: ContextKey {
    ///     static var defaultValue: any Payments { LivePayments() }
    ///     static var testValue: any Payments { unimplemented(placeholder: NoPayments()) }
    /// }
    /// ```
    ///
    /// - Parameter placeholder: What a read returns after reporting itself, so that the test goes on.
    /// - Returns: `placeholder`, marked unimplemented when computed as the key's test value.
    public static func unimplemented(placeholder: @autoclosure () -> Value) -> Value {
        UnimplementedMark.current?.mark()
        return placeholder()
    }

    /// A test value that is unimplemented, whose reads return the key's ``defaultValue`` (computed afresh
    /// for each test context) after reporting themselves; see ``unimplemented(placeholder:)``.
    ///
    /// ```swift
    /// enum PaymentsKey: ContextKey {
    ///     static var defaultValue: any Payments { LivePayments() }
    ///     static var testValue: any Payments { unimplemented() }
    /// }
    /// ```
    ///
    /// - Returns: The key's ``defaultValue``, marked unimplemented when computed as the key's test value.
    public static func unimplemented() -> Value {
        unimplemented(placeholder: defaultValue)
    }
}
