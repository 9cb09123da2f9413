// The tool: its flags override the library's settings at the tool's root context, and the library runs
// inside that context.

import ArgumentParser
import Contextual
import TaskKit

/// `taskrun`: delivers a message through a flaky operation, retried by TaskKit.
///
/// ```sh
/// taskrun "hello" --fail-times 2 --verbose        # fails twice, waits 200 ms then 400 ms, delivers
/// taskrun "hello" --fail-times 5 --attempts 3     # gives up after 3 attempts
/// taskrun "hello" --fail-times 2 --dry-run        # the same, without waiting (an immediate clock)
/// ```
public struct TaskRun: AsyncParsableCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "taskrun",
        abstract: "Delivers a message through an operation that fails the first --fail-times attempts, with retries."
    )

    /// What to deliver.
    @Argument(help: "The message to deliver.")
    public var message: String

    /// How many attempts fail before one succeeds.
    @Option(help: "How many attempts fail before one succeeds.")
    public var failTimes = 0

    /// Overrides the retry policy's attempts.
    @Option(help: "Attempts in all (default: TaskKit's retry policy, 3).")
    public var attempts: Int?

    /// Overrides the retry policy's first wait.
    @Option(help: "The first wait, in milliseconds, doubled after each failure (default: 200).")
    public var delayMs: Int?

    /// Writes every attempt and wait.
    @Flag(name: .shortAndLong, help: "Write every attempt and wait.")
    public var verbose = false

    /// Writes results only.
    @Flag(name: .shortAndLong, help: "Write results only.")
    public var quiet = false

    /// Writes to the standard error instead of the standard output.
    @Flag(help: "Write to the standard error.")
    public var stderr = false

    /// Does not wait between attempts.
    @Flag(help: "Do not wait between attempts (an immediate clock).")
    public var dryRun = false

    /// Makes the command with its defaults (`TaskRun.parse(…)` makes it from arguments).
    ///
    /// ```swift
    /// let command = try TaskRun.parse(["hello", "--verbose"])
    /// ```
    public init() {}

    /// The tool's context: a child of `base` that names the tool and sets what the flags override.
    ///
    /// ```swift
    /// let tool = try TaskRun.parse(["hi", "--attempts", "5"]).makeContext()
    /// tool[\.retryPolicy].maxAttempts  // 5
    /// ```
    public func makeContext(base: Context = .root) -> Context {
        base.child(name: "taskrun") { values in
            values.toolName = "taskrun"
            if verbose { values.verbosity = .verbose }
            if quiet { values.verbosity = .quiet }
            if let attempts { values.retryPolicy.maxAttempts = max(1, attempts) }
            if let delayMs { values.retryPolicy.initialDelay = .milliseconds(delayMs) }
            if stderr { values.output = .standardError }
            if dryRun { values.clock = ImmediateClock() }
        }
    }

    /// Validates the flags.
    ///
    /// ```swift
    /// _ = try TaskRun.parse(["hi", "--verbose", "--quiet"])  // throws: choose one
    /// ```
    public func validate() throws {
        if verbose && quiet { throw ValidationError("--verbose and --quiet contradict each other: pass one of them") }
        if let attempts, attempts < 1 { throw ValidationError("--attempts \(attempts): give 1 or more") }
        if failTimes < 0 { throw ValidationError("--fail-times \(failTimes): give 0 or more") }
    }

    /// Runs the tool under the process's root context.
    ///
    /// ```swift
    /// try await TaskRun.parse(["hello"]).run()
    /// ```
    public func run() async throws { try await run(in: .root) }

    /// Runs the tool under `base`, which tests set (a capturing output, an immediate clock); the flags
    /// override it.
    ///
    /// ```swift
    /// try await TaskRun.parse(["hello"]).run(in: Context(name: "test") { $0.output = captured.sink })
    /// ```
    public func run(in base: Context) async throws {
        let tool = makeContext(base: base)
        let failTimes = self.failTimes
        let message = self.message
        let delivered = try await tool.run {
            try await TaskRunner.run("deliver") { attempt in
                if attempt <= failTimes { throw FlakyFailure(attempt: attempt) }
                return "delivered '\(message)' on attempt \(attempt)"
            }
        }
        tool[\.output].writeLine(delivered)
    }
}

/// The simulated failure of an attempt.
struct FlakyFailure: Error, CustomStringConvertible {
    let attempt: Int
    var description: String { "attempt \(attempt) failed, as --fail-times asked" }
}
