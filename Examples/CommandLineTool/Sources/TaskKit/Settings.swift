// The library's settings: keys with defaults, read from the current context. A tool overrides them at its
// root; a test overrides them per test.

import Contextual
import Foundation

/// How much the library writes.
///
/// ```swift
/// let tool = Context(name: "taskrun") { $0.verbosity = .verbose }
/// ```
public enum Verbosity: Int, Sendable, Comparable, CaseIterable {
    /// Results only.
    case quiet
    /// Results and failures.
    case normal
    /// Everything, each attempt and each wait included.
    case verbose

    /// Orders by how much is written.
    ///
    /// ```swift
    /// Verbosity.quiet < .verbose  // true
    /// ```
    public static func < (lhs: Verbosity, rhs: Verbosity) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where the library writes its lines.
///
/// ```swift
/// let tool = Context(name: "taskrun") { $0.output = .standardError }
/// ```
public struct OutputSink: Sendable {
    let write: @Sendable (String) -> Void

    /// A sink that calls `write` with each line.
    ///
    /// ```swift
    /// let sink = OutputSink { line in print("> \(line)") }
    /// ```
    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// Writes one line.
    ///
    /// ```swift
    /// Context.current[\.output].writeLine("done")
    /// ```
    public func writeLine(_ line: String) { write(line) }

    /// The standard output: the default.
    ///
    /// ```swift
    /// $0.output = .standardOutput
    /// ```
    public static let standardOutput = OutputSink { print($0) }

    /// The standard error.
    ///
    /// ```swift
    /// $0.output = .standardError
    /// ```
    public static let standardError = OutputSink { line in
        var stream = StandardError()
        print(line, to: &stream)
    }
}

/// How an operation is retried: how many attempts in all, the first wait, and how the wait grows.
///
/// ```swift
/// $0.retryPolicy = RetryPolicy(maxAttempts: 5, initialDelay: .milliseconds(50), multiplier: 2)
/// ```
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included; at least 1.
    public var maxAttempts: Int
    /// The wait after the first failure.
    public var initialDelay: Duration
    /// What each later wait is multiplied by.
    public var multiplier: Int

    /// Makes a policy.
    ///
    /// ```swift
    /// let once = RetryPolicy(maxAttempts: 1)
    /// ```
    public init(maxAttempts: Int = 3, initialDelay: Duration = .milliseconds(200), multiplier: Int = 2) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.multiplier = multiplier
    }

    /// The wait after failed attempt `attempt` (1 for the first).
    ///
    /// ```swift
    /// RetryPolicy().delay(afterAttempt: 2)  // 400 ms
    /// ```
    public func delay(afterAttempt attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) { delay *= multiplier }
        return delay
    }
}

enum VerbosityKey: ContextKey {
    static var defaultValue: Verbosity { .normal }
}

enum OutputKey: ContextKey {
    static var defaultValue: OutputSink { .standardOutput }
}

enum RetryPolicyKey: ContextKey {
    static var defaultValue: RetryPolicy { RetryPolicy() }
}

enum ToolNameKey: ContextKey {
    static var defaultValue: String? { nil }
}

extension ContextValues {
    /// How much the library writes; `.normal` by default.
    ///
    /// ```swift
    /// let quiet = tool.child(\.verbosity, .quiet, name: "quiet")
    /// ```
    public var verbosity: Verbosity {
        get { self[VerbosityKey.self] }
        set { self[VerbosityKey.self] = newValue }
    }

    /// Where the library writes; the standard output by default.
    ///
    /// ```swift
    /// $0.output = .standardError
    /// ```
    public var output: OutputSink {
        get { self[OutputKey.self] }
        set { self[OutputKey.self] = newValue }
    }

    /// How operations are retried; 3 attempts, 200 ms then 400 ms apart, by default.
    ///
    /// ```swift
    /// $0.retryPolicy.maxAttempts = 5
    /// ```
    public var retryPolicy: RetryPolicy {
        get { self[RetryPolicyKey.self] }
        set { self[RetryPolicyKey.self] = newValue }
    }

    /// The tool that embeds the library, set at the tool's root context; `nil` by default.
    ///
    /// The library reads it to notice when it runs outside any tool's context: in debug builds it then
    /// writes a note (see ``TaskRunner``).
    ///
    /// ```swift
    /// let tool = Context(name: "taskrun") { $0.toolName = "taskrun" }
    /// ```
    public var toolName: String? {
        get { self[ToolNameKey.self] }
        set { self[ToolNameKey.self] = newValue }
    }
}

/// The standard error, as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
