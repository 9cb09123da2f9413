import Contextual

// The example's use of the system values: a retry whose delay comes from the context's clock (immediate
// in a test context), and a report line wrapped to the terminal's width, in colour only on a terminal
// that wants it (not under NO_COLOR, nor when piped).

/// A connection that failed, to retry.
struct ConnectionRefused: Error {}

/// Runs `body` up to `attempts` times, waiting `delay` on `context`'s clock between attempts; returns the
/// result and how long it waited in all.
func retrying<Result>(
    in context: Context,
    attempts: Int,
    delay: Duration,
    _ body: (Int) async throws -> Result
) async throws -> (result: Result, waited: Duration) {
    let clock = context[\.clock]
    var waited = Duration.zero
    for attempt in 1..<attempts {
        do {
            return (try await body(attempt), waited)
        } catch {
            try await clock.sleep(for: delay)
            waited += delay
        }
    }
    return (try await body(attempts), waited)
}

/// Text for `terminal`: `text` wrapped to its width, each later line indented by `indent` spaces;
/// `label` in bold when the terminal wants colour.
func reportLine(_ label: String, _ text: String, indent: Int, terminal: Terminal) -> String {
    let styledLabel = terminal.supportsColor ? "\u{1B}[1m\(label)\u{1B}[0m" : label
    var lines: [String] = []
    var line = ""
    let width = max(terminal.width, indent + 20)
    for word in text.split(separator: " ") {
        let available = width - indent
        if !line.isEmpty && line.count + 1 + word.count > available {
            lines.append(line)
            line = ""
        }
        line += line.isEmpty ? String(word) : " " + word
    }
    lines.append(line)
    let padding = String(repeating: " ", count: indent)
    return styledLabel + lines.joined(separator: "\n" + padding)
}
