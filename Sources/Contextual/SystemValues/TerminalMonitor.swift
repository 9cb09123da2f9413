// `TerminalMonitor`: a terminal's description, measured again after each SIGWINCH and observable.

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - TerminalMonitor

/// The description of the terminal on two file descriptors (standard output and error by default),
/// measured when made and again after every SIGWINCH; ``observed`` is observed, so that
/// `observe(\.terminal)` is called after a resize.
///
/// `@unchecked Sendable`: the only stored variable is the `@Observed` storage, assigned once in `init`;
/// `packed` is atomic.
final class TerminalMonitor: ObservableModel, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    let outputDescriptor: Int32
    let errorDescriptor: Int32
    let environment: EnvironmentVariables

    /// The terminal as last measured, for observers: a read while tracking records it.
    @Observed var observed: Terminal
    /// The same, packed in one word, so that a read outside tracking takes no lock.
    private let packed: Atomic<UInt64>

    /// The terminal as last measured: a lock-free load, except while an observation records its reads.
    var current: Terminal {
        if ObservationRecorder.active != nil { return observed }
        return Self.unpack(packed.load(ordering: .acquiring))
    }

    /// Measures the terminal on `outputDescriptor` and `errorDescriptor` and follows its resizes from now
    /// on (installing the process's SIGWINCH handler, once).
    init(outputDescriptor: Int32 = 1, errorDescriptor: Int32 = 2, environment: EnvironmentVariables) {
        self.outputDescriptor = outputDescriptor
        self.errorDescriptor = errorDescriptor
        self.environment = environment
        let terminal = Self.measure(outputDescriptor, errorDescriptor, environment)
        self.packed = Atomic(Self.pack(terminal))
        self.observed = terminal
        WindowSizeSignal.shared.add(self)
    }

    /// Measures the terminal again, notifying observers if it changed.
    func refresh() {
        let terminal = Self.measure(outputDescriptor, errorDescriptor, environment)
        packed.store(Self.pack(terminal), ordering: .releasing)
        observed = terminal
    }

    /// A measured terminal in one word: width and height (at most 65,535, as `winsize` holds them) and
    /// the three flags.
    static func pack(_ terminal: Terminal) -> UInt64 {
        let width = UInt64(UInt16(clamping: terminal.width))
        let height = UInt64(UInt16(clamping: terminal.height))
        let flags =
            (terminal.isOutputTerminal ? 1 : 0) | (terminal.isErrorTerminal ? 2 : 0) | (terminal.supportsColor ? 4 : 0)
        return width | height << 16 | UInt64(flags) << 32
    }

    /// The terminal that ``pack(_:)`` packed.
    static func unpack(_ word: UInt64) -> Terminal {
        Terminal(
            isOutputTerminal: word >> 32 & 1 != 0,
            isErrorTerminal: word >> 33 & 1 != 0,
            width: Int(word & 0xFFFF),
            height: Int(word >> 16 & 0xFFFF),
            supportsColor: word >> 34 & 1 != 0
        )
    }

    /// The terminal on `output` and `error`: never fails, falling back to 80 by 24.
    static func measure(_ output: Int32, _ error: Int32, _ environment: EnvironmentVariables) -> Terminal {
        let isOutputTerminal = isatty(output) == 1
        let isErrorTerminal = isatty(error) == 1
        var size = winsize()
        var width = Terminal.fallbackWidth
        var height = Terminal.fallbackHeight
        for descriptor in [output, error] where isatty(descriptor) == 1 {
            if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 || size.ws_row > 0 {
                // A dimension the terminal does not report (0) keeps its fallback.
                if size.ws_col > 0 { width = Int(size.ws_col) }
                if size.ws_row > 0 { height = Int(size.ws_row) }
                break
            }
        }
        return Terminal(
            isOutputTerminal: isOutputTerminal,
            isErrorTerminal: isErrorTerminal,
            width: width,
            height: height,
            supportsColor: Terminal.colorEnabled(isTerminal: isOutputTerminal, environment: environment)
        )
    }
}
