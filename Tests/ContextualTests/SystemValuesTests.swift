// Tests of the built-in system values: live defaults, test values, overrides and bad input.

import Foundation
import Testing

@testable import Contextual

@Suite("System values")
struct SystemValuesTests {
    @Test("A test context reads the deterministic test values")
    func testValues() async throws {
        let test = Context.testing()
        let clock = try #require(test[\.clock] as? ImmediateClock)
        try await clock.sleep(for: .seconds(60))
        #expect(clock.sleeps == [.seconds(60)])
        #expect(test[\.date].now == Date(timeIntervalSinceReferenceDate: 0))
        #expect(test[\.uuid]().uuidString == "00000000-0000-0000-0000-000000000000")
        #expect(test[\.uuid]().uuidString == "00000000-0000-0000-0000-000000000001")
        var random = test[\.random]
        var seeded = RandomSource.seeded(RandomSource.testSeed)
        #expect(random.next() == seeded.next())
        #expect(test[\.environmentVariables] == EnvironmentVariables())
        #expect(test[\.arguments] == [])
        #expect(test[\.terminal] == Terminal(width: 80, height: 24))
        #expect(test[\.locale].identifier == "en_US_POSIX")
        #expect(test[\.timeZone].secondsFromGMT() == 0)
        #expect(test[\.hostName] == "localhost")
        #expect(test[\.processID] == 1)
        #expect(test[\.activeProcessorCount] == 1)
    }

    @Test("Each test context gets its own incrementing UUIDs and seeded randomness")
    func testValuesPerContext() {
        let first = Context.testing()
        let second = Context.testing()
        _ = first[\.uuid]()
        #expect(second[\.uuid]().uuidString == "00000000-0000-0000-0000-000000000000")
        var a = first[\.random]
        var b = second[\.random]
        #expect(a.next() == b.next())
    }

    @Test("Outside tests the live values are read")
    func liveValues() {
        let context = Context(name: "live")
        #expect(context[\.clock] is ContinuousClock)
        let before = Date()
        #expect(context[\.date].now >= before)
        #expect(context[\.uuid]() != context[\.uuid]())
        #expect(context[\.arguments] == CommandLine.arguments)
        #expect(context[\.processID] == getpid())
        #expect(context[\.activeProcessorCount] >= 1)
        #expect(!context[\.hostName].isEmpty)
        #expect(context[\.environmentVariables]["PATH"] == ProcessInfo.processInfo.environment["PATH"])
        #expect(context[\.terminal].width > 0)
    }

    @Test("Every system value can be overridden for a subtree")
    func overrides() throws {
        let fixed = Date(timeIntervalSince1970: 1_000)
        let child = Context.testing().child {
            $0.date = .constant(fixed)
            $0.uuid = .incrementing(from: 10)
            $0.arguments = ["tool", "--verbose"]
            $0.environmentVariables["PORT"] = "9000"
            $0.terminal = Terminal(isOutputTerminal: true, width: 40, supportsColor: true)
            $0.hostName = "web-1"
        }
        #expect(child[\.date].now == fixed)
        #expect(child[\.uuid]().uuidString == "00000000-0000-0000-0000-00000000000A")
        #expect(child[\.arguments] == ["tool", "--verbose"])
        #expect(try child[\.environmentVariables].value("PORT", as: Int.self) == 9000)
        #expect(child[\.terminal].width == 40)
        #expect(child[\.hostName] == "web-1")
    }

    @Test("Seeded randomness is reproducible and copies share their sequence")
    func seededRandom() {
        var first = RandomSource.seeded(42)
        var second = RandomSource.seeded(42)
        let a = (0..<5).map { _ in Int.random(in: 0..<1000, using: &first) }
        let b = (0..<5).map { _ in Int.random(in: 0..<1000, using: &second) }
        #expect(a == b)
        var copy = first
        #expect(copy.next() != first.next())
    }

    @Test("Typed environment reads: values, nil when missing, errors naming variable, value and type")
    func typedEnvironment() throws {
        enum LogLevel: String { case debug, info, error }
        let environment = EnvironmentVariables([
            "PORT": "8080", "BAD_PORT": "abc", "DEBUG": "yes", "MAYBE": "perhaps", "RATIO": "0.5",
            "DATABASE": "postgres://db/app", "RELATIVE": "just text", "LEVEL": "INFO", "LOUD": "loud",
        ])
        #expect(try environment.value("PORT", as: Int.self) == 8080)
        #expect(try environment.value("MISSING", as: Int.self) == nil)
        #expect(try environment.value("DEBUG", as: Bool.self) == true)
        #expect(try environment.value("RATIO", as: Double.self) == 0.5)
        #expect(try environment.value("DATABASE", as: URL.self)?.host == "db")
        #expect(try environment.value("LEVEL", as: LogLevel.self) == .info)
        #expect(throws: EnvironmentVariableError(name: "BAD_PORT", value: "abc", expectedType: "Int")) {
            try environment.value("BAD_PORT", as: Int.self)
        }
        #expect(throws: EnvironmentVariableError.self) { try environment.value("MAYBE", as: Bool.self) }
        #expect(throws: EnvironmentVariableError.self) { try environment.value("RELATIVE", as: URL.self) }
        do {
            _ = try environment.value("LOUD", as: LogLevel.self)
            Issue.record("LOUD=loud should not read as a LogLevel")
        } catch {
            #expect(error.description == "LOUD=loud is not a valid LogLevel")
        }
    }

    @Test("The process environment is read as it is")
    func processEnvironment() {
        setenv("CONTEXTUAL_TEST_VARIABLE", "a=b", 1)
        defer { unsetenv("CONTEXTUAL_TEST_VARIABLE") }
        #expect(EnvironmentVariables.process["CONTEXTUAL_TEST_VARIABLE"] == "a=b")
    }

    @Test(
        "Locales from LC_ALL, LC_MESSAGES and LANG; bad values fall back to en_US_POSIX",
        arguments: [
            (["LANG": "de_DE.UTF-8"], "de_DE"),
            (["LANG": "de_DE.UTF-8", "LC_ALL": "fr_FR@euro"], "fr_FR"),
            (["LANG": "en_GB", "LC_MESSAGES": "pt_BR.UTF-8"], "pt_BR"),
            (["LANG": "C"], "en_US_POSIX"),
            (["LANG": "POSIX"], "en_US_POSIX"),
            (["LANG": ""], "en_US_POSIX"),
            (["LANG": "../../etc/passwd"], "en_US_POSIX"),
            (["LANG": "\u{0}\u{1}garbage_!!"], "en_US_POSIX"),
            ([:], "en_US_POSIX"),
        ]
    )
    func locales(environment: [String: String], identifier: String) {
        #expect(LocaleKey.locale(from: EnvironmentVariables(environment)).identifier == identifier)
    }

    @Test("Time zones from TZ; malformed values fall back to GMT, no TZ to the system's")
    func timeZones() {
        func zone(_ tz: String?) -> TimeZone {
            TimeZoneKey.timeZone(from: EnvironmentVariables(tz.map { ["TZ": $0] } ?? [:]))
        }
        #expect(zone("UTC").secondsFromGMT() == 0)
        #expect(zone(":UTC").secondsFromGMT() == 0)
        #expect(zone("not/a/zone").secondsFromGMT() == 0)
        #expect(zone("../../../etc/passwd").secondsFromGMT() == 0)
        #expect(zone(String(repeating: "x", count: 10_000)).secondsFromGMT() == 0)
        #expect(zone(nil) == TimeZone.current)
        #expect(zone("") == TimeZone.current)
    }

    @Test(
        "Colour honours NO_COLOR, FORCE_COLOR, CLICOLOR, CLICOLOR_FORCE and TERM=dumb",
        arguments: [
            (true, [:], true),
            (false, [:], false),
            (true, ["NO_COLOR": "1"], false),
            (true, ["NO_COLOR": ""], true),
            (false, ["FORCE_COLOR": "1"], true),
            (true, ["FORCE_COLOR": "0"], false),
            (false, ["CLICOLOR_FORCE": "1"], true),
            (true, ["TERM": "dumb"], false),
            (true, ["CLICOLOR": "0"], false),
            (false, ["NO_COLOR": "1", "FORCE_COLOR": "1"], false),
        ] as [(Bool, [String: String], Bool)]
    )
    func colour(isTerminal: Bool, environment: [String: String], expected: Bool) {
        let enabled = Terminal.colorEnabled(isTerminal: isTerminal, environment: EnvironmentVariables(environment))
        #expect(enabled == expected)
    }

    @Test("A descriptor that is not a terminal measures as 80 by 24 without colour")
    func notATerminal() {
        var descriptors: [Int32] = [-1, -1]
        #expect(pipe(&descriptors) == 0)
        defer { for descriptor in descriptors { close(descriptor) } }
        let terminal = TerminalMonitor.measure(descriptors[1], descriptors[1], EnvironmentVariables())
        #expect(terminal == Terminal())
        #expect(TerminalMonitor.measure(-1, 9_999, EnvironmentVariables()) == Terminal())
    }

    @Test("A measured terminal packs into one word and back, for lock-free reads")
    func packing() {
        for terminal in [
            Terminal(),
            Terminal(isOutputTerminal: true, isErrorTerminal: false, width: 65_535, height: 1, supportsColor: true),
            Terminal(isOutputTerminal: false, isErrorTerminal: true, width: 132, height: 43, supportsColor: false),
        ] {
            #expect(TerminalMonitor.unpack(TerminalMonitor.pack(terminal)) == terminal)
        }
    }

    @Test("Nothing is computed before its first read: a fresh process computes only the keys it reads")
    func lazyDefaults() async {
        await #expect(processExitsWith: .success) {
            let ids = [
                StorageID(key: ClockKey.self), StorageID(key: DateGeneratorKey.self),
                StorageID(key: UUIDGeneratorKey.self), StorageID(key: RandomSourceKey.self),
                StorageID(key: EnvironmentVariablesKey.self), StorageID(key: ArgumentsKey.self),
                StorageID(key: TerminalKey.self), StorageID(key: LocaleKey.self), StorageID(key: TimeZoneKey.self),
                StorageID(key: HostNameKey.self), StorageID(key: ProcessIDKey.self),
                StorageID(key: ActiveProcessorCountKey.self),
            ]
            func computed() -> [Bool] {
                ids.map { DefaultValueStore.shared.publishedBox($0) != 0 }
            }
            let context = Context(name: "app") { $0.buildWaitLimit = .seconds(1) }
            _ = context[\.buildWaitLimit]
            if computed().contains(true) { fatalError("a system value was computed before it was read") }
            _ = context[\.hostName]
            if computed() != ids.map({ $0 == StorageID(key: HostNameKey.self) }) {
                fatalError("reading the host name computed another system value")
            }
        }
    }
}
