import Contextual
import Foundation
import Synchronization
import Testing

// The ```swift blocks of Articles/SystemValues.md, verbatim, and what their prose and comments claim.

@Suite("Article: System values")
struct SystemValuesArticleTests {
    @Test("Any system value is set for a subtree like any key")
    func overriding() {
        let app = Context(name: "tool")
        let fixed = app.child {
            $0.date = .constant(Date(timeIntervalSince1970: 0))
            $0.environmentVariables["PORT"] = "9000"
        }
        let start = fixed[\.date].now  // 1970-01-01T00:00:00Z

        #expect(start == Date(timeIntervalSince1970: 0))
        #expect(fixed[\.environmentVariables]["PORT"] == "9000")
        #expect(app[\.date].now > Date(timeIntervalSince1970: 0))
    }

    @Test("A test context reads deterministic values")
    func deterministic() async throws {
        let test = Context.testing()
        let first = test[\.uuid]().uuidString  // "00000000-0000-0000-0000-000000000000"
        let second = test[\.uuid]().uuidString  // "00000000-0000-0000-0000-000000000001"
        var random = test[\.random]
        let roll = Int.random(in: 1...6, using: &random)  // the same on every run
        try await test[\.clock].sleep(for: .seconds(30))  // returns at once

        #expect(first == "00000000-0000-0000-0000-000000000000")
        #expect(second == "00000000-0000-0000-0000-000000000001")
        var again = Context.testing()[\.random]
        #expect(Int.random(in: 1...6, using: &again) == roll)
        #expect((test[\.clock] as? ImmediateClock)?.sleeps == [.seconds(30)])
    }

    @Test("Typed environment reads")
    func typedReads() throws {
        enum LogLevel: String { case debug, info, error }

        let environment = EnvironmentVariables(["PORT": "abc", "LOG_LEVEL": "debug"])
        let level = try environment.value("LOG_LEVEL", as: LogLevel.self) ?? .info  // .debug
        let timeout = try environment.value("TIMEOUT", as: Int.self) ?? 30  // missing: 30
        do {
            _ = try environment.value("PORT", as: Int.self)
        } catch {
            print(error)  // PORT=abc is not a valid Int: expected a decimal integer such as 8080
        }

        #expect(level == .debug)
        #expect(timeout == 30)
        let error = EnvironmentVariableError(
            name: "PORT",
            value: "abc",
            expectedType: "Int",
            acceptedForms: "a decimal integer such as 8080"
        )
        #expect(throws: error) { try environment.value("PORT", as: Int.self) }
        #expect("\(error)" == "PORT=abc is not a valid Int: expected a decimal integer such as 8080")
        #expect(try EnvironmentVariables(["PORT": ""]).value("PORT", as: Int.self) == nil, "empty is unset")
        #expect(
            "\(EnvironmentVariableError(name: "PORT", value: "8080\u{200B}", expectedType: "Int"))"
                == #"PORT="8080\u{200B}" is not a valid Int"#
        )
    }

    @Test("Elapsed time is measured on the context's clock, with no cast")
    func measuring() async throws {
        let (elapsed, taken) = try await Context.testing().run {
            let clock = Context.current[\.clock]
            let start = clock.now
            try await clock.sleep(for: .seconds(1))
            let elapsed = start.duration(to: clock.now)  // 1 s: at once in a test, a second or a little more live
            let taken = try await clock.measure { try await clock.sleep(for: .seconds(2)) }  // 2 s
            return (elapsed, taken)
        }

        #expect(elapsed == .seconds(1))
        #expect(taken == .seconds(2))
        let manual = ManualClock()
        let test = Context.testing { $0.clock = manual }
        let start = test[\.clock].now
        manual.advance(by: .seconds(5))
        #expect(start.duration(to: test[\.clock].now) == .seconds(5))
        let suspending = Context.testing { $0.clock = SuspendingClock() }
        #expect(!(suspending[\.clock] is ImmediateClock))
    }

    @Test("The terminal is observed")
    func observing() {
        let app = Context.testing()
        let token = app.observe(\.terminal) { terminal in
            print("now \(terminal.width) columns")
        }
        token.cancel()

        let widths = Mutex<[Int]>([])
        let watching = app.observe(\.terminal) { terminal in widths.withLock { $0.append(terminal.width) } }
        app.update { $0.terminal = Terminal(isOutputTerminal: true, width: 40, supportsColor: true) }
        #expect(widths.withLock { $0 } == [40])
        watching.cancel()
    }
}
