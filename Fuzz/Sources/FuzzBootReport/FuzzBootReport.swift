// Fuzz target: boot-report JSON read as a baseline is read, then written and rendered in every form.

import Contextual

// MARK: - Fuzz target

/// libFuzzer's entry point: the bytes are the text of a baseline. Any text is either refused with
/// `incompatibleBootReport`, naming where it was read from, or read as a report that writes back to the same
/// JSON, reads back equal, renders as DOT and Mermaid, and compares equal to itself. Anything else stops
/// the process, which libFuzzer reports as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBootReport(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let report: BootReport
    do {
        report = try BootReport(json: text, source: "fuzz-input.json")
    } catch {
        check(error.code == .incompatibleBootReport, "refused with \(error.code), not incompatibleBootReport", error)
        check(error.message.contains("fuzz-input.json"), "the refusal does not say where the text came from", error)
        check(error.message.contains("Fix: "), "the refusal does not say how to fix it", error)
        return 0
    }
    checkRoundTrip(report)
    checkGraphs(report)
    checkComparison(report)
    return 0
}

// MARK: - Properties

/// Written as JSON, the report reads back equal, and writes the same JSON again.
private func checkRoundTrip(_ report: BootReport) {
    let json = report.json
    let read: BootReport
    do {
        read = try BootReport(json: json, source: "its own JSON")
    } catch {
        fail("a report read back from its own JSON is refused: \(error)\n\(json)")
    }
    check(read == report, "a report read back from its own JSON differs from it", json)
    check(read.json == json, "a report read back from its own JSON writes other JSON", json)
}

/// Both graphs render, whole: every provider a node, every edge an arrow (an id may hold any text, so an
/// arrow is counted only on a line of its own).
private func checkGraphs(_ report: BootReport) {
    let dot = report.dot
    check(dot.hasPrefix("digraph boot {\n") && dot.hasSuffix("\n}\n"), "the DOT graph is not one digraph", dot)
    let mermaid = report.mermaid
    check(mermaid.hasPrefix("graph LR\n") && mermaid.hasSuffix("\n"), "the Mermaid graph has no header", mermaid)
    let arrows = mermaid.split(separator: "\n").filter { line in
        let parts = line.split(separator: " ")
        return line.hasPrefix("    p") && parts.count == 3 && parts[1] == "-->"
    }
    check(arrows.count >= report.totals.edges, "the Mermaid graph lacks edges", mermaid)
}

/// The report compared with itself passes, times included.
private func checkComparison(_ report: BootReport) {
    let comparison: BootReportComparison
    do {
        comparison = try report.compared(to: report, timeTolerance: 1)
    } catch {
        fail("a report cannot be compared with itself: \(error)\n\(report.json)")
    }
    check(comparison.passed, "a report compared with itself does not pass:\n\(comparison.summary)", report.json)
    check(comparison.summary.hasSuffix("verdict: passed"), "the summary's verdict is not passed", comparison.summary)
}

// MARK: - Failing

private func check(_ condition: Bool, _ problem: @autoclosure () -> String, _ context: @autoclosure () -> Any) {
    if !condition { fail("\(problem())\n\(context())") }
}

private func fail(_ message: String) -> Never {
    fatalError("FuzzBootReport: \(message)")
}
