// Tests that a real (pseudo-)terminal's resize updates `\.terminal`, and how the SIGWINCH handler is installed.

import Synchronization
import Testing

@testable import Contextual

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal: the controlling side and the terminal side, open for one test.
final class PseudoTerminal {
    let controller: Int32
    let terminal: Int32

    init() throws {
        // posix_openpt and friends are not imported from the C library's headers here: looked up instead.
        typealias OpenPT = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        func function<F>(_ name: String, as type: F.Type) throws -> F {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { throw PseudoTerminalError() }
            return unsafeBitCast(symbol, to: F.self)
        }
        let openPT = try function("posix_openpt", as: OpenPT.self)
        let grant = try function("grantpt", as: OpenPT.self)
        let unlock = try function("unlockpt", as: OpenPT.self)
        let name = try function("ptsname", as: Name.self)
        controller = openPT(O_RDWR | O_NOCTTY)
        guard controller >= 0, grant(controller) == 0, unlock(controller) == 0, let path = name(controller) else {
            throw PseudoTerminalError()
        }
        terminal = open(path, O_RDWR | O_NOCTTY)
        guard terminal >= 0 else { throw PseudoTerminalError() }
    }

    /// Sets the terminal's size, as a terminal emulator does when its window is resized.
    func resize(columns: UInt16, rows: UInt16) {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(controller, UInt(TIOCSWINSZ), &size)
    }

    deinit {
        close(terminal)
        close(controller)
    }
}

struct PseudoTerminalError: Error {}

/// The SIGWINCHes a program's own handler saw, in the exit test.
let programHandlerCalls = Atomic<Int>(0)

@Suite("Terminal resizes")
struct TerminalResizeTests {
    @Test("Resizing a pseudo-terminal and signalling SIGWINCH updates \\.terminal and calls its observers")
    func resizeUpdatesTerminal() async throws {
        let pty = try PseudoTerminal()
        pty.resize(columns: 100, rows: 30)
        let monitor = TerminalMonitor(
            outputDescriptor: pty.terminal,
            errorDescriptor: pty.terminal,
            environment: EnvironmentVariables()
        )
        let context = Context(name: "tty") { $0[TerminalKey.self] = .live(monitor) }
        #expect(
            context[\.terminal]
                == Terminal(isOutputTerminal: true, isErrorTerminal: true, width: 100, height: 30, supportsColor: true)
        )

        let seen = Locked<[Terminal]>.make([])
        let token = context.observe(\.terminal) { terminal in seen.withLock { $0.append(terminal) } }
        defer { token.cancel() }
        pty.resize(columns: 132, rows: 43)
        kill(getpid(), SIGWINCH)
        // One wait for both: the new size, and the observer told of it.
        await waitUntil { context[\.terminal].width == 132 && seen.withLock { $0.last?.width == 132 } }
        #expect(context[\.terminal].width == 132)
        #expect(context[\.terminal].height == 43)
        #expect(seen.withLock { $0.last?.width } == 132)
    }

    @Test("No handler until the terminal is read; then one that chains to the program's own")
    func handlerInstalledLazilyAndChained() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            func currentHandlerAddress() -> Int {
                var action = sigaction()
                sigaction(SIGWINCH, nil, &action)
                #if canImport(Darwin)
                return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
                #else
                return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
                #endif
            }
            // The program's own handler, installed first.
            signal(SIGWINCH) { _ in programHandlerCalls.add(1, ordering: .relaxed) }
            let programs = currentHandlerAddress()
            let context = Context.live(name: "app")
            _ = context[\.clock]
            _ = context[\.environmentVariables]
            _ = context[\.locale]
            if currentHandlerAddress() != programs {
                fatalError("a handler was installed before the terminal was read")
            }
            _ = context[\.terminal]
            if currentHandlerAddress() == programs { fatalError("no handler after reading the terminal") }
            kill(getpid(), SIGWINCH)  // taken by a thread that does not block it (the test's may)
            for _ in 0..<12_000 where programHandlerCalls.load(ordering: .relaxed) == 0 { usleep(5_000) }  // 60 s
            if programHandlerCalls.load(ordering: .relaxed) != 1 { fatalError("the program's handler was not chained") }
            // A second monitor does not install a second handler.
            let installed = currentHandlerAddress()
            _ = TerminalMonitor(environment: EnvironmentVariables())
            if currentHandlerAddress() != installed { fatalError("the handler was installed twice") }
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("\(String(decoding: result.standardErrorContent, as: UTF8.self))")
        }
    }
}
