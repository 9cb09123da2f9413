// `Terminal`: what the process writes to — terminals or not, their size, and whether to use colour.

// MARK: - Terminal

/// What standard output and standard error are, read from ``ContextValues/terminal``: kept current as
/// the terminal is resized.
///
/// ```swift
/// let terminal = Context.current[\.terminal]
/// let line = String(repeating: "─", count: terminal.width)
/// print(terminal.supportsColor ? "\u{1B}[1m\(title)\u{1B}[0m" : title)
/// ```
public struct Terminal: Sendable, Hashable {
    /// Whether standard output is a terminal.
    ///
    /// ```swift
    /// terminal.isOutputTerminal  // false when piped to a file
    /// ```
    public var isOutputTerminal: Bool

    /// Whether standard error is a terminal.
    ///
    /// ```swift
    /// terminal.isErrorTerminal  // true in an interactive shell
    /// ```
    public var isErrorTerminal: Bool

    /// The terminal's width in columns: ``fallbackWidth`` when unknown or not a terminal.
    ///
    /// ```swift
    /// terminal.width  // 80 when piped
    /// ```
    public var width: Int

    /// The terminal's height in rows: ``fallbackHeight`` when unknown or not a terminal.
    ///
    /// ```swift
    /// terminal.height  // 24 when piped
    /// ```
    public var height: Int

    /// Whether to write colour to standard output: `NO_COLOR` (set and not empty) turns it off; otherwise
    /// `FORCE_COLOR` (other than `0`/`false`) or `CLICOLOR_FORCE` (other than `0`) turns it on; otherwise
    /// `FORCE_COLOR=0`, `TERM=dumb` or `CLICOLOR=0` turn it off; otherwise it is on for a terminal.
    ///
    /// ```swift
    /// terminal.supportsColor  // false under NO_COLOR=1
    /// ```
    public var supportsColor: Bool

    /// The width used when it cannot be read: 80.
    ///
    /// ```swift
    /// Terminal.fallbackWidth  // 80
    /// ```
    public static var fallbackWidth: Int { 80 }

    /// The height used when it cannot be read: 24.
    ///
    /// ```swift
    /// Terminal.fallbackHeight  // 24
    /// ```
    public static var fallbackHeight: Int { 24 }

    /// Makes a description of a terminal; by default, no terminal (80 by 24, no colour), which is also
    /// what a test context reads.
    ///
    /// ```swift
    /// let test = Context.testing { $0.terminal = Terminal(isOutputTerminal: true, width: 40, supportsColor: true) }
    /// ```
    ///
    /// - Parameters:
    ///   - isOutputTerminal: Whether standard output is a terminal.
    ///   - isErrorTerminal: Whether standard error is a terminal.
    ///   - width: The width in columns.
    ///   - height: The height in rows.
    ///   - supportsColor: Whether to write colour.
    public init(
        isOutputTerminal: Bool = false,
        isErrorTerminal: Bool = false,
        width: Int = Terminal.fallbackWidth,
        height: Int = Terminal.fallbackHeight,
        supportsColor: Bool = false
    ) {
        self.isOutputTerminal = isOutputTerminal
        self.isErrorTerminal = isErrorTerminal
        self.width = width
        self.height = height
        self.supportsColor = supportsColor
    }

    /// Whether colour is wanted, given whether the output is a terminal and the environment.
    static func colorEnabled(isTerminal: Bool, environment: EnvironmentVariables) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        let force = environment["FORCE_COLOR"]
        if let force, force != "0", force.lowercased() != "false" { return true }
        if let force = environment["CLICOLOR_FORCE"], !force.isEmpty, force != "0" { return true }
        if force != nil { return false }
        if environment["TERM"] == "dumb" { return false }
        if environment["CLICOLOR"] == "0" { return false }
        return isTerminal
    }
}
