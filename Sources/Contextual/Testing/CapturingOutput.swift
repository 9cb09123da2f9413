// `CapturingOutput`: a text output sink that keeps what is written to it, for tests to assert on.

// MARK: - CapturingOutput

/// A `TextOutputStream` that keeps everything written to it, from any thread, for a test to read back:
/// the test value of an output a command-line tool writes to.
///
/// ```swift
/// var output = CapturingOutput()
/// print("hello", to: &output)
/// output.text   // "hello\n"
/// output.lines  // ["hello"]
/// ```
///
/// It is a reference: copies (such as one read from a context) share what was written.
public final class CapturingOutput: TextOutputStream, Sendable {
    private let written = Locked.make("")

    /// Makes an empty sink.
    ///
    /// ```swift
    /// let output = CapturingOutput()
    /// ```
    public init() {}

    /// Appends `string`.
    ///
    /// ```swift
    /// output.write("done\n")
    /// ```
    ///
    /// - Parameter string: The text to keep.
    public func write(_ string: String) {
        written.withLock { $0 += string }
    }

    /// Everything written so far.
    ///
    /// ```swift
    /// output.text  // "hello\n"
    /// ```
    public var text: String { written.withLock { $0 } }

    /// What was written so far, split into lines, without a last empty line after a final newline.
    ///
    /// ```swift
    /// output.lines  // ["hello"]
    /// ```
    public var lines: [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Forgets what was written.
    ///
    /// ```swift
    /// output.removeAll()
    /// ```
    public func removeAll() {
        written.withLock { $0 = "" }
    }
}
