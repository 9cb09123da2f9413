// The library's entry point: runs an operation with retries, reading every setting from the current
// context.

import Contextual

/// Runs operations with retries, by the settings of ``Contextual/Context/current``: the retry policy,
/// the clock it waits on, the verbosity and the output.
///
/// It takes no configuration: a tool sets the keys at its root context and runs the library inside it
/// (`tool.run { … }`); a test sets them per test. Outside any tool's context (``Contextual/ContextValues/toolName``
/// unset), the library still works with the keys' defaults, and in debug builds it writes a note saying
/// so, so that forgetting `tool.run` is easy to notice.
///
/// ```swift
/// let tool = Context(name: "taskrun") { $0.toolName = "taskrun"; $0.verbosity = .verbose }
/// let value = try await tool.run { try await TaskRunner.run("fetch") { try await fetch() } }
/// ```
public enum TaskRunner {
    /// Runs `operation`, retrying it by the current retry policy while it throws; returns its first
    /// result, or throws its last error after the last attempt.
    ///
    /// ```swift
    /// let count = try await TaskRunner.run("count") { try await countLines() }
    /// ```
    ///
    /// - Parameters:
    ///   - name: The operation's name, in what the runner writes.
    ///   - operation: The work; it receives the attempt number, 1 for the first.
    /// - Returns: What `operation` returned.
    /// - Throws: ``TaskFailure`` with the operation's last error, after the policy's last attempt.
    public static func run<Result: Sendable>(
        _ name: String,
        operation: (Int) async throws -> Result
    ) async throws -> Result {
        let context = Context.current
        let output = context[\.output]
        let verbosity = context[\.verbosity]
        let policy = context[\.retryPolicy]
        let clock = context[\.clock]
        #if DEBUG
        if context[\.toolName] == nil {
            output.writeLine(
                "note: TaskRunner.run(\"\(name)\") runs outside any tool's context (context '\(context.name ?? "unnamed")'"
                    + " sets no toolName), so it uses the default settings; run it inside your tool's context:"
                    + " `try await tool.run { … }`, with `$0.toolName` set (this note is written in debug builds only)"
            )
        }
        #endif
        var attempt = 1
        while true {
            do {
                if verbosity >= .verbose { output.writeLine("\(name): attempt \(attempt) of \(policy.maxAttempts)") }
                let result = try await operation(attempt)
                if verbosity >= .verbose { output.writeLine("\(name): succeeded on attempt \(attempt)") }
                return result
            } catch {
                guard attempt < policy.maxAttempts else {
                    if verbosity >= .normal {
                        output.writeLine("\(name): failed after \(attempt) attempt(s): \(error)")
                    }
                    throw TaskFailure(name: name, attempts: attempt, lastError: error)
                }
                let delay = policy.delay(afterAttempt: attempt)
                if verbosity >= .verbose {
                    output.writeLine("\(name): attempt \(attempt) failed (\(error)); waiting \(delay)")
                }
                try await clock.sleep(for: delay)
                attempt += 1
            }
        }
    }
}

/// An operation that failed on every attempt its retry policy allowed.
///
/// ```swift
/// catch let failure as TaskFailure { print(failure.attempts) }
/// ```
public struct TaskFailure: Error, CustomStringConvertible {
    /// The operation's name.
    public let name: String
    /// How many attempts were made.
    public let attempts: Int
    /// What the last attempt threw.
    public let lastError: any Error

    /// What failed, how often, and how to allow more attempts.
    ///
    /// ```swift
    /// print(failure)  // "fetch failed after 3 attempt(s): …"
    /// ```
    public var description: String {
        "\(name) failed after \(attempts) attempt(s): \(lastError); allow more with a larger retryPolicy.maxAttempts "
            + "(taskrun --attempts N)"
    }
}
