// `uuid`: the generator of identifiers; random live, incrementing in tests.

// MARK: - UUID

extension ContextValues {
    /// Where new UUIDs come from: random unless set; in a test context incrementing from
    /// `00000000-0000-0000-0000-000000000000`, afresh for each test context.
    ///
    /// ```swift
    /// let orderID = Context.current[\.uuid]()
    /// ```
    public var uuid: UUIDGenerator {
        get { self[UUIDGeneratorKey.self] }
        set { self[UUIDGeneratorKey.self] = newValue }
    }
}

/// The key of ``ContextValues/uuid``.
enum UUIDGeneratorKey: ContextKey {
    static var defaultValue: UUIDGenerator { .random }
    static var testValue: UUIDGenerator { .incrementing() }
}
