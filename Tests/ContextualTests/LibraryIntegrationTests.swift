import Testing

@testable import Contextual

// MARK: - A library that exposes keys

/// A stand-in for a library: it defines its keys with defaults and reads them from the current
/// context; it takes no configuration parameter.
enum GreetingLibrary {
    /// Where the library writes its output.
    struct OutputSink: Sendable {
        let write: @Sendable (String) -> Void
    }

    enum OutputKey: ContextKey {
        static var defaultValue: OutputSink { OutputSink { print($0) } }
    }

    enum VerbosityKey: ContextKey {
        static var defaultValue: Int { 1 }
    }

    static func greet(_ name: String) {
        let output = Context.current[\.greetingOutput]
        let verbosity = Context.current[\.greetingVerbosity]
        output.write("Hello, \(name)!")
        if verbosity > 1 { output.write("(verbosity \(verbosity))") }
    }

    struct Greeter {
        @Injected(\.greetingOutput) var output
        @Injected(\.greetingVerbosity) var verbosity

        func greet(_ name: String) {
            output.write(verbosity > 1 ? "Hi, \(name)! [v\(verbosity)]" : "Hi, \(name)!")
        }
    }
}

extension ContextValues {
    var greetingOutput: GreetingLibrary.OutputSink {
        get { self[GreetingLibrary.OutputKey.self] }
        set { self[GreetingLibrary.OutputKey.self] = newValue }
    }

    var greetingVerbosity: Int {
        get { self[GreetingLibrary.VerbosityKey.self] }
        set { self[GreetingLibrary.VerbosityKey.self] = newValue }
    }
}

// MARK: - A tool that embeds it

@Suite("A library's keys overridden by the tool that embeds it")
struct LibraryIntegrationTests {
    final class Lines: Sendable {
        private let lines = Locked<[String]>.make([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test("A tool overrides the library's output and verbosity at its root, without any parameter")
    func toolOverridesLibraryKeys() {
        let lines = Lines()
        let tool = Context(name: "tool") {
            $0.greetingOutput = .init { lines.append($0) }
            $0.greetingVerbosity = 2
        }
        tool.run {
            GreetingLibrary.greet("world")
            GreetingLibrary.Greeter().greet("you")
        }
        #expect(lines.all == ["Hello, world!", "(verbosity 2)", "Hi, you! [v2]"])
    }

    @Test("Without an override the library uses its defaults")
    func libraryDefaults() {
        #expect(Context.current[\.greetingVerbosity] == 1)
    }
}
