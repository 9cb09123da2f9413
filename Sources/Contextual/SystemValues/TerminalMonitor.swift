// `TerminalMonitor`: a terminal's description, measured again after each SIGWINCH and observable.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - TerminalMonitor

/// The description of the terminal on two file descriptors (standard output and error by default),
/// measured when made and again after every SIGWINCH; ``current`` is observed, so that
/// `observe(\.terminal)` is called after a resize.
///
/// `@unchecked Sendable`: the only stored variable is the `@Observed` storage, assigned once in `init`.
final class TerminalMonitor: ObservableModel, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    let outputDescriptor: Int32
    let errorDescriptor: Int32
    let environment: EnvironmentVariables

    /// The terminal as last measured.
    @Observed var current: Terminal

    /// Measures the terminal on `outputDescriptor` and `errorDescriptor` and follows its resizes from now
    /// on (installing the process's SIGWINCH handler, once).
    init(outputDescriptor: Int32 = 1, errorDescriptor: Int32 = 2, environment: EnvironmentVariables) {
        self.outputDescriptor = outputDescriptor
        self.errorDescriptor = errorDescriptor
        self.environment = environment
        self.current = Self.measure(outputDescriptor, errorDescriptor, environment)
        WindowSizeSignal.shared.add(self)
    }

    /// Measures the terminal again, notifying observers if it changed.
    func refresh() {
        current = Self.measure(outputDescriptor, errorDescriptor, environment)
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
