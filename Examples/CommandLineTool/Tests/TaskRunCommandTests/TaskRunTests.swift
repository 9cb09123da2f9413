// The tool: flags override the library's settings; tests run it under a context of their own.

import Contextual
import TaskKit
import TaskRunCommand
import Testing

@Suite("taskrun's flags override TaskKit's keys")
struct TaskRunTests {
    @Test("Flags set the tool's context: attempts, delay, verbosity, clock")
    func flags() throws {
        let tool = try TaskRun.parse(["hi", "--attempts", "5", "--delay-ms", "10", "--verbose", "--dry-run"])
            .makeContext()
        #expect(tool[\.retryPolicy].maxAttempts == 5)
        #expect(tool[\.retryPolicy].initialDelay == .milliseconds(10))
        #expect(tool[\.verbosity] == .verbose)
        #expect(tool[\.clock] is ImmediateClock)
        #expect(tool[\.toolName] == "taskrun")
    }

    @Test("Without flags, the tool keeps TaskKit's defaults")
    func defaults() throws {
        let tool = try TaskRun.parse(["hi"]).makeContext()
        #expect(tool[\.retryPolicy] == RetryPolicy())
        #expect(tool[\.verbosity] == .normal)
        // In a test process, a context that is not a test context reads test values: the immediate clock.
        #expect(tool[\.clock] is ImmediateClock)
    }

    @Test("A test's context supplies the output and the clock; the flags still win over it")
    func underATestContext() async throws {
        let captured = CapturingOutput()
        let clock = ImmediateClock()
        let test = Context(name: "test") {
            $0.output = captured.sink
            $0.clock = clock
            $0.verbosity = .quiet
        }
        try await TaskRun.parse(["hello", "--fail-times", "2", "--verbose"]).run(in: test)
        #expect(clock.sleeps == [.milliseconds(200), .milliseconds(400)], "waited on the test's clock, not for real")
        #expect(captured.lines.contains("deliver: attempt 3 of 3"), "--verbose overrode the test's quiet")
        #expect(captured.lines.last == "delivered 'hello' on attempt 3")
        #expect(!captured.lines.contains { $0.hasPrefix("note:") }, "inside the tool's context: no note")
    }

    @Test("Contradicting or impossible flags are rejected with what to pass instead")
    func validation() {
        let contradiction = #expect(throws: (any Error).self) { try TaskRun.parse(["hi", "--verbose", "--quiet"]) }
        #expect(contradiction.map { TaskRun.message(for: $0) }?.contains("pass one of them") == true)
        let impossible = #expect(throws: (any Error).self) { try TaskRun.parse(["hi", "--attempts", "0"]) }
        #expect(impossible.map { TaskRun.message(for: $0) }?.contains("give 1 or more") == true)
    }
}
