// The library, under contexts that override its settings per test: no test waits, none sees another's.

import Contextual
import TaskKit
import Testing

struct Flaky: Error {}

/// A context for one test: a capturing output, an immediate clock, and a tool name.
func testContext(_ captured: CapturingOutput, _ clock: ImmediateClock, verbosity: Verbosity = .verbose) -> Context {
    Context(name: "test") {
        $0.toolName = "tests"
        $0.output = captured.sink
        $0.clock = clock
        $0.verbosity = verbosity
    }
}

@Suite("TaskKit reads its settings from the current context")
struct TaskRunnerTests {
    @Test("Retries wait on the context's clock, by the retry policy, and write each attempt when verbose")
    func retries() async throws {
        let captured = CapturingOutput()
        let clock = ImmediateClock()
        let value = try await testContext(captured, clock).run {
            try await TaskRunner.run("fetch") { attempt in
                if attempt < 3 { throw Flaky() }
                return attempt
            }
        }
        #expect(value == 3)
        #expect(clock.sleeps == [.milliseconds(200), .milliseconds(400)])
        #expect(captured.lines.first == "fetch: attempt 1 of 3")
        #expect(captured.lines.last == "fetch: succeeded on attempt 3")
    }

    @Test("After the policy's last attempt it throws the last error and says so at normal verbosity")
    func givesUp() async throws {
        let captured = CapturingOutput()
        let context = testContext(captured, ImmediateClock(), verbosity: .normal)
            .child(name: "two attempts") { $0.retryPolicy.maxAttempts = 2 }
        let failure = await #expect(throws: TaskFailure.self) {
            try await context.run { try await TaskRunner.run("fetch") { _ in throw Flaky() } }
        }
        #expect(failure?.attempts == 2)
        #expect(captured.lines.count == 1)
        #expect(captured.lines.first?.hasPrefix("fetch: failed after 2 attempt(s)") == true)
    }

    @Test("Quiet writes nothing but what the caller writes")
    func quiet() async throws {
        let captured = CapturingOutput()
        _ = try await testContext(captured, ImmediateClock(), verbosity: .quiet).run {
            try await TaskRunner.run("fetch") { attempt in attempt }
        }
        #expect(captured.lines.isEmpty)
    }

    @Test("Outside any tool's context the library works with its defaults and, in debug builds, says so")
    func outsideTheTool() async throws {
        let captured = CapturingOutput()
        let bare = Context(name: "bare") { $0.output = captured.sink }  // forgot to set toolName
        let value = try await bare.run { try await TaskRunner.run("fetch") { attempt in attempt } }
        #expect(value == 1)
        #if DEBUG
        let note = try #require(captured.lines.first)
        #expect(note.hasPrefix("note: TaskRunner.run(\"fetch\") runs outside any tool's context"))
        #expect(note.contains("tool.run"))
        #endif
    }

    @Test("Tests running at once do not see each other's contexts")
    func isolation() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...8 {
                group.addTask {
                    let captured = CapturingOutput()
                    let clock = ImmediateClock()
                    let context = testContext(captured, clock).child(name: "test \(index)") {
                        $0.retryPolicy = RetryPolicy(
                            maxAttempts: index + 1,
                            initialDelay: .seconds(index),
                            multiplier: 1
                        )
                    }
                    _ = try await context.run {
                        try await TaskRunner.run("job \(index)") { attempt in
                            if attempt <= index { throw Flaky() }
                            return attempt
                        }
                    }
                    #expect(clock.sleeps == Array(repeating: .seconds(index), count: index))
                    #expect(captured.lines.allSatisfy { $0.hasPrefix("job \(index):") })
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("The immediate clock advances by each wait, and the retry policy's waits grow")
    func doubles() async throws {
        let clock = ImmediateClock()
        let start = clock.now
        try await clock.sleep(for: .seconds(5))
        #expect(start.duration(to: clock.now) == .seconds(5))
        #expect(
            RetryPolicy(initialDelay: .milliseconds(100), multiplier: 3).delay(afterAttempt: 3) == .milliseconds(900)
        )
    }
}
