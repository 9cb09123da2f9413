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

    @Test("A live context reads the live values, also in a test process")
    func liveValues() {
        let context = Context.live(name: "live")
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

    @Test("In a test process, a context that is not a test context reads the test values of system values")
    func testValuesOutsideTestContexts() {
        let context = Context(name: "app")
        #expect(context[\.clock] is ImmediateClock)
        #expect(context[\.environmentVariables]["PATH"] == nil)
        #expect(context[\.arguments].isEmpty)
        #expect(!context.isTesting)
        #expect(!Context.live().isTesting)
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
        #expect(
            throws: EnvironmentVariableError(
                name: "BAD_PORT",
                value: "abc",
                expectedType: "Int",
                acceptedForms: "a decimal integer such as 8080"
            )
        ) {
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

    @Test(
        "A typed read refuses a value in another form, quoting it and listing the forms its type accepts",
        arguments: [
            ("URL", "::not a url", #"URL="::not a url" is not a valid URL: expected \#(urlForms)"#),
            ("URL", ":8080", "URL=:8080 is not a valid URL: expected \(urlForms)"),
            ("URL", "localhost:8080", "URL=localhost:8080 is not a valid URL: expected \(urlForms)"),
            (
                "URL", "http://example.com/a b",
                #"URL="http://example.com/a b" is not a valid URL: expected \#(urlForms)"#
            ),
            ("URL", "http://example.com/a[b]", "URL=http://example.com/a[b] is not a valid URL: expected \(urlForms)"),
            ("URL", "http://ex%zzample.com", "URL=http://ex%zzample.com is not a valid URL: expected \(urlForms)"),
            ("URL", "https://bücher.example", "URL=https://bücher.example is not a valid URL: expected \(urlForms)"),
            ("URL", "file:///tmp/x", "URL=file:///tmp/x is not a valid URL: expected \(urlForms)"),
            ("URL", "http://", "URL=http:// is not a valid URL: expected \(urlForms)"),
            ("URL", "/just/a/path", "URL=/just/a/path is not a valid URL: expected \(urlForms)"),
            ("Double", "inf", "Double=inf is not a valid Double: expected \(doubleForms)"),
            ("Double", "-infinity", "Double=-infinity is not a valid Double: expected \(doubleForms)"),
            ("Double", "nan", "Double=nan is not a valid Double: expected \(doubleForms)"),
            ("Double", "1e309", "Double=1e309 is not a valid Double: expected \(doubleForms)"),
            ("Double", "0x1p3", "Double=0x1p3 is not a valid Double: expected \(doubleForms)"),
            ("Double", "1\0junk", #"Double="1\0junk" is not a valid Double: expected \#(doubleForms)"#),
            ("Double", "1_000.5", "Double=1_000.5 is not a valid Double: expected \(doubleForms)"),
            ("Double", "1e", "Double=1e is not a valid Double: expected \(doubleForms)"),
            ("Double", ".", "Double=. is not a valid Double: expected \(doubleForms)"),
            ("Double", "0.5\u{200B}", #"Double="0.5\u{200B}" is not a valid Double: expected \#(doubleForms)"#),
            ("Int", "abc", "Int=abc is not a valid Int: expected \(intForms)"),
            ("Int", "8080\0", #"Int="8080\0" is not a valid Int: expected \#(intForms)"#),
            ("Int", "\u{FEFF}8080", #"Int="\u{FEFF}8080" is not a valid Int: expected \#(intForms)"#),
            ("Int", "80\u{200B}80", #"Int="80\u{200B}80" is not a valid Int: expected \#(intForms)"#),
            ("Int", "0x1F", "Int=0x1F is not a valid Int: expected \(intForms)"),
            ("Int", "1_000", "Int=1_000 is not a valid Int: expected \(intForms)"),
            ("Int", "８０８０", "Int=８０８０ is not a valid Int: expected \(intForms)"),
            ("Int", "99999999999999999999", "Int=99999999999999999999 is not a valid Int: expected \(intForms)"),
            ("Int", "80 80", #"Int="80 80" is not a valid Int: expected \#(intForms)"#),
            ("Int", "\u{301}80", #"Int="\u{301}80" is not a valid Int: expected \#(intForms)"#),
            ("Bool", "maybe", "Bool=maybe is not a valid Bool: expected \(boolForms)"),
            ("Bool", "true\0", #"Bool="true\0" is not a valid Bool: expected \#(boolForms)"#),
            ("Bool", "yes\u{200B}", #"Bool="yes\u{200B}" is not a valid Bool: expected \#(boolForms)"#),
            ("Bool", "ＴＲＵＥ", "Bool=ＴＲＵＥ is not a valid Bool: expected \(boolForms)"),
            ("Bool", "tru\"e\\", #"Bool="tru\"e\\" is not a valid Bool: expected \#(boolForms)"#),
        ]
    )
    func refusedValues(type: String, value: String, message: String) {
        let environment = EnvironmentVariables([type: value])
        do {
            switch type {
            case "URL": _ = try environment.value(type, as: URL.self)
            case "Double": _ = try environment.value(type, as: Double.self)
            case "Int": _ = try environment.value(type, as: Int.self)
            default: _ = try environment.value(type, as: Bool.self)
            }
            Issue.record("\(type)=\(String(reflecting: value)) was accepted")
        } catch {
            #expect(error.description == message)
            #expect(error.name == type && error.value == value && error.expectedType == type)
        }
    }

    @Test("A typed read accepts each type's forms, surrounding spaces and tabs ignored")
    func acceptedValues() throws {
        func read<Value: EnvironmentVariableValue>(_ value: String, as type: Value.Type) throws -> Value? {
            try EnvironmentVariables(["VALUE": value]).value("VALUE", as: type)
        }
        for (text, number) in [("8080", 8080), (" -1\t", -1), ("+7", 7), ("007", 7), ("0", 0)] {
            #expect(try read(text, as: Int.self) == number, "\(text)")
        }
        let decimals: [(String, Double)] = [
            ("0.5", 0.5), ("-3", -3), (".25", 0.25), ("5.", 5), ("1e-3", 0.001), ("1E+3", 1000),
            ("+2.5e2", 250), (" 42 ", 42), ("1e-400", 0), ("1.7976931348623157e308", .greatestFiniteMagnitude),
        ]
        for (text, number) in decimals {
            #expect(try read(text, as: Double.self) == number, "\(text)")
        }
        for (text, flag) in [
            ("true", true), ("FALSE", false), ("1", true), ("0", false), ("Yes", true), ("no", false),
            ("oN", true), ("off", false), (" on\t", true),
        ] {
            #expect(try read(text, as: Bool.self) == flag, "\(text)")
        }
        for (text, host) in [
            ("https://example.com", "example.com"), ("postgres://user:secret@db:5432/app?sslmode=off", "db"),
            ("http://[::1]:8080/path?q=1#top", "::1"), ("https://example.com/a%20b", "example.com"),
            (" redis://cache ", "cache"), ("s3+https://bucket.example/key~1", "bucket.example"),
        ] {
            let url = try read(text, as: URL.self)
            #expect(url?.host(percentEncoded: true) == host, "\(text)")
            #expect(url?.absoluteString == text.trimmingCharacters(in: .whitespaces), "read as written: \(text)")
        }
    }

    @Test("An empty variable reads as an unset one, whatever the type")
    func emptyVariables() throws {
        enum LogLevel: String { case debug, info, error }
        let environment = EnvironmentVariables(["PORT": "", "RATIO": "", "DEBUG": "", "URL": "", "NAME": ""])
        #expect(try environment.value("PORT", as: Int.self) == nil)
        #expect(try environment.value("RATIO", as: Double.self) == nil)
        #expect(try environment.value("DEBUG", as: Bool.self) == nil)
        #expect(try environment.value("URL", as: URL.self) == nil)
        #expect(try environment.value("NAME", as: String.self) == nil)
        #expect(try environment.value("NAME", as: LogLevel.self) == nil)
        #expect(environment["PORT"] == "", "the subscript still reads the value as set")
    }

    @Test("A bad value of a CaseIterable enumeration lists its raw values; a type of your own may list its forms")
    func enumerationAndOwnForms() {
        enum LogLevel: String, CaseIterable { case debug, info, error }
        struct Port: EnvironmentVariableValue {
            var number: UInt16
            init?(environmentVariable text: String) {
                guard let number = UInt16(text) else { return nil }
                self.number = number
            }
            static var environmentVariableForms: String? { "a port number from 0 to 65535" }
        }
        struct Plain: EnvironmentVariableValue {
            init?(environmentVariable text: String) { nil }
        }
        let environment = EnvironmentVariables(["LEVEL": "loud", "PORT": "70000"])
        #expect(throws: EnvironmentVariableError.self) { try environment.value("LEVEL", as: LogLevel.self) }
        do {
            _ = try environment.value("LEVEL", as: LogLevel.self)
            Issue.record("no error")
        } catch {
            #expect(error.description == "LEVEL=loud is not a valid LogLevel: expected one of debug, info, error")
        }
        do {
            _ = try environment.value("PORT", as: Port.self)
            Issue.record("no error")
        } catch {
            #expect(error.description == "PORT=70000 is not a valid Port: expected a port number from 0 to 65535")
        }
        do {
            _ = try environment.value("PORT", as: Plain.self)
            Issue.record("no error")
        } catch {
            #expect(error.description == "PORT=70000 is not a valid Plain")
        }
    }

    @Test("The clock measures elapsed time without casts: a manual clock advanced by 5 s gives 5 s")
    func elapsedOnManualClock() {
        let manual = ManualClock()
        let clock = Context.testing { $0.clock = manual }[\.clock]
        let start = clock.now
        manual.advance(by: .seconds(5))
        let elapsed = start.duration(to: clock.now)
        #expect(elapsed == .seconds(5))
        let measured = clock.measure { manual.advance(by: .seconds(2)) }
        #expect(measured == .seconds(2))
    }

    @Test("The clock measures elapsed time without casts: an immediate clock sleeping 3 s gives 3 s")
    func elapsedOnImmediateClock() async throws {
        let elapsed = try await Context.testing().run {
            let clock = Context.current[\.clock]
            let start = clock.now
            try await clock.sleep(for: .seconds(3))
            return start.duration(to: clock.now)
        }
        #expect(elapsed == .seconds(3))
        let clock = Context.testing()[\.clock]
        let measured = try await clock.measure { try await clock.sleep(for: .seconds(3)) }
        #expect(measured == .seconds(3))
        #expect((clock as? ImmediateClock)?.sleeps == [.seconds(3)])
    }

    @Test("The clock measures elapsed time without casts: the live clock's elapsed time is the real wait")
    func elapsedOnLiveClock() async throws {
        let clock = Context.live(name: "live")[\.clock]
        let before = ContinuousClock.now
        let start = clock.now
        try await clock.sleep(for: .milliseconds(20))
        let elapsed = start.duration(to: clock.now)
        let real = ContinuousClock.now - before
        #expect(elapsed >= .milliseconds(20))
        #expect(elapsed <= real)
        let measured = try await clock.measure { try await clock.sleep(for: .milliseconds(10)) }
        #expect(measured >= .milliseconds(10))
    }

    @Test("Elapsed time between instants of two clocks stops the process, naming both clocks")
    func elapsedAcrossClocks() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let start = Context.testing { $0.clock = ManualClock() }[\.clock].now
            _ = start.duration(to: Context.live(name: "live")[\.clock].now)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("duration(to:) between instants of two clocks"), "\(stderr)")
    }

    @Test("Elapsed time between a manual clock's instant and an immediate clock's is their offsets' difference")
    func elapsedAcrossTestClocks() async throws {
        let manual = ManualClock()
        let start = Context.testing { $0.clock = manual }[\.clock].now
        let clock = Context.testing()[\.clock]
        try await clock.sleep(for: .seconds(3))
        #expect(start.duration(to: clock.now) == .seconds(3))
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

// MARK: - Accepted forms

private let intForms = "a decimal integer such as 8080"
private let doubleForms = "a finite decimal number such as 0.5"
private let boolForms = "true/false, 1/0, yes/no, on/off"
private let urlForms = "an absolute URL with a scheme and a host, such as https://example.com"

@Suite("Test process detection")
struct TestProcessDetectionTests {
    @Test("A test runner is found from its executable, its arguments or XCTest's environment; a program is not")
    func detection() {
        #expect(TestProcess.detect(arguments: ["/p/.build/debug/AppPackageTests.xctest"], environment: [:]))
        #expect(
            TestProcess.detect(
                arguments: ["/usr/bin/swiftpm-testing-helper", "--test-bundle-path", "x"],
                environment: [:]
            )
        )
        #expect(!TestProcess.detect(arguments: ["/usr/bin/tool", "export", "Foo.xctest"], environment: [:]))
        #expect(!TestProcess.detect(arguments: ["/usr/bin/tool", "--testing-library", "xctest"], environment: [:]))
        #expect(TestProcess.detect(arguments: ["/usr/bin/xctest", "App.xctest"], environment: [:]))
        #expect(TestProcess.detect(arguments: ["/p/App"], environment: ["XCTestConfigurationFilePath": "/tmp/c"]))
        #expect(!TestProcess.detect(arguments: ["/usr/local/bin/server", "serve", "--port", "8080"], environment: [:]))
        #expect(!TestProcess.detect(arguments: ["/p/xctest-report", "run"], environment: ["PATH": "/usr/bin"]))
        #expect(TestProcess.isRunningTests)
    }
}
