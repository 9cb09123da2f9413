// `terminal`: the process's terminal, kept current on resize (SIGWINCH), and observable.

// MARK: - Terminal

extension ContextValues {
    /// The terminal the process writes to, kept current: a resize updates it, and `observe(\.terminal)`
    /// sees the change. Unless set, read from standard output and standard error at the first read
    /// (which installs the SIGWINCH handler; see <doc:SystemValues>); in a test context, no terminal:
    /// `Terminal()`, 80 by 24 without colour.
    ///
    /// ```swift
    /// let width = Context.current[\.terminal].width
    /// let token = app.observe(\.terminal) { terminal in relayout(width: terminal.width) }
    /// ```
    ///
    /// Setting it fixes the value for the subtree: resizes no longer change it there.
    public var terminal: Terminal {
        get {
            switch self[TerminalKey.self] {
            case .fixed(let terminal): terminal
            case .live(let monitor): monitor.current
            }
        }
        set { self[TerminalKey.self] = .fixed(newValue) }
    }
}

/// The key of ``ContextValues/terminal``: a fixed description, or the process's terminal, kept current.
enum TerminalKey: ContextKey {
    static var defaultValue: TerminalSource { .live(TerminalMonitor(environment: .process)) }
    static var testValue: TerminalSource { .fixed(Terminal()) }
}

/// What ``ContextValues/terminal`` reads: a set value, or a monitor that follows resizes.
enum TerminalSource: Sendable {
    case fixed(Terminal)
    case live(TerminalMonitor)
}
