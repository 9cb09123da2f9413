// `UnimplementedRead`: the report of a test context's read of a key whose test value is unimplemented.

// MARK: - UnimplementedRead

/// A read, in a test context, of a key whose ``ContextKey/testValue`` is unimplemented: what the handler
/// of ``Context/testing(name:onUnimplementedRead:_:)`` receives, on the reading thread, at each such read.
///
/// ```swift
/// let context = Context.testing(onUnimplementedRead: { read in
///     print(read)  // Unimplemented: PaymentsKey was read in test context 'test', which does not set it
/// })
/// ```
public struct UnimplementedRead: Sendable, Hashable, CustomStringConvertible {
    /// The key's type, fully qualified: e.g. `MyApp.PaymentsKey`.
    ///
    /// ```swift
    /// read.key  // "MyApp.PaymentsKey"
    /// ```
    public let key: String

    /// The name of the test context that was read, if it has one.
    ///
    /// ```swift
    /// read.contextName  // "checkout charges the card()"
    /// ```
    public let contextName: String?

    /// Whether it was read in a test runner by a context that is not a test context (no `.context` trait
    /// around the test, say), which reads test values too.
    let isOutsideTestContext: Bool

    /// Makes the report of a read of `key` in the test context named `contextName`.
    ///
    /// ```swift
    /// let read = UnimplementedRead(key: "MyApp.PaymentsKey", contextName: "test")
    /// ```
    public init(key: String, contextName: String?) {
        self.key = key
        self.contextName = contextName
        self.isOutsideTestContext = false
    }

    /// A sentence naming the key and the context, and saying how to fix the test.
    ///
    /// ```swift
    /// read.description  // "Unimplemented: MyApp.PaymentsKey was read in test context 'test', …"
    /// ```
    public var description: String {
        if isOutsideTestContext {
            return "Unimplemented: \(key) was read in a test, outside any test context, where an unset key reads"
                + " its testValue (which is unimplemented): run the test in a test context that sets it, e.g."
                + " `@Test(.context(\\.yourKey, …))` with the property of ContextValues that reads it; to read"
                + " live values on purpose, run it in `Context.live(name:_:)`"
        }
        return "Unimplemented: \(key) was read in test context '\(contextName ?? "unnamed")', which does not set it"
            + " (its testValue is unimplemented): set it in the test's context, e.g. `.context(\\.yourKey, …)` with"
            + " the property of ContextValues that reads it, or `.context { $0[\(key).self] = … }`"
    }

    /// The default handler of ``Context/testing(name:onUnimplementedRead:_:)``: prints the report.
    ///
    /// ```swift
    /// let context = Context.testing(onUnimplementedRead: UnimplementedRead.print)
    /// ```
    ///
    /// - Parameter read: The read to report.
    @Sendable
    public static func print(_ read: UnimplementedRead) {
        Swift.print(read.description)
    }
}

// MARK: - Outside test contexts

extension UnimplementedRead {
    /// The report of a read of `key`, in a test runner, by a context that is not a test context.
    static func outsideTestContext<Key>(_ key: Key.Type) -> UnimplementedRead {
        UnimplementedRead(key: TypeMetadata.qualifiedName(of: key), contextName: nil, isOutsideTestContext: true)
    }

    private init(key: String, contextName: String?, isOutsideTestContext: Bool) {
        self.key = key
        self.contextName = contextName
        self.isOutsideTestContext = isOutsideTestContext
    }
}
