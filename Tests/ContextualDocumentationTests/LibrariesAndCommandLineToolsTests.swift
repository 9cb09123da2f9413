import Contextual
import Synchronization
import Testing

// The ```swift blocks of Articles/LibrariesAndCommandLineTools.md, verbatim, and what their prose and
// comments claim.

// MARK: - A library's keys

public enum Verbosity: Int, Sendable {
    case quiet, normal, loud
}

enum OutputKey: ContextKey {
    static var defaultValue: @Sendable (String) -> Void { { print($0) } }
}

enum VerbosityKey: ContextKey {
    static var defaultValue: Verbosity { .normal }
}

extension ContextValues {
    public var output: @Sendable (String) -> Void {
        get { self[OutputKey.self] }
        set { self[OutputKey.self] = newValue }
    }

    public var verbosity: Verbosity {
        get { self[VerbosityKey.self] }
        set { self[VerbosityKey.self] = newValue }
    }
}

/// The library's entry point: it reads its settings from the current context.
public func runChecks() {
    let context = Context.current
    if context[\.verbosity] != .quiet {
        context[\.output]("checks passed")
    }
}

// MARK: - Tests override them per test

final class Transcript: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

// MARK: - Async code and services

struct Reporter {
    @Injected(\.verbosity) var verbosity

    func report() -> String { "verbosity \(verbosity.rawValue)" }
}

@Suite("Libraries and command-line tools")
struct LibrariesAndCommandLineToolsTests {
    @Test("The tool overrides the library's keys at its root; tests capture what the library writes")
    func toolOverrides() {
        let printed = Lines()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let tool = Context(name: "tool") {
            $0.verbosity = .loud
            $0.output = { line in print("[tool] \(line)") }
        }
        tool.run { runChecks() }  // prints "[tool] checks passed"

        #expect(printed.all == ["[tool] checks passed"])
        #expect(Context.root[\.verbosity] == .normal)

        let transcript = Transcript()
        let loud = tool.child(name: "loud test") { $0.output = { transcript.append($0) } }
        loud.run { runChecks() }  // appends "checks passed"
        let quiet = loud.child(\.verbosity, .quiet, name: "quiet test")
        quiet.run { runChecks() }  // appends nothing: quiet
        let captured = transcript.all  // ["checks passed"]

        #expect(captured == ["checks passed"])
        #expect(printed.all == ["[tool] checks passed"])
    }

    @Test("Tests running at once each see their own context")
    func parallelTests() async {
        let transcripts = (0..<8).map { _ in Transcript() }
        await withTaskGroup(of: Void.self) { group in
            for (index, transcript) in transcripts.enumerated() {
                group.addTask {
                    let context = Context(name: "test \(index)") {
                        $0.output = { transcript.append("\(index): \($0)") }
                        $0.verbosity = index.isMultiple(of: 2) ? .loud : .quiet
                    }
                    context.run { runChecks() }
                }
            }
        }
        for (index, transcript) in transcripts.enumerated() {
            #expect(transcript.all == (index.isMultiple(of: 2) ? ["\(index): checks passed"] : []))
        }
    }

    @Test("A service binds to the context current when it is made; async let inherits Context.current")
    func asyncAndServices() async {
        let tool = Context(name: "tool") {
            $0.verbosity = .loud
            $0.output = { _ in }
        }

        let reporter = tool.run { Reporter() }
        let report = await Task.detached { reporter.report() }.value  // "verbosity 2": bound to `tool`
        let inherited = await tool.run {
            async let level = Context.current[\.verbosity]
            return await level
        }  // .loud

        #expect(report == "verbosity 2")
        #expect(inherited == .loud)
        #expect(reporter.$verbosity.context === tool)
    }
}
