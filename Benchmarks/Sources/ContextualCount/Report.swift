import Peers

// MARK: - Judging the targets

/// A target's verdict, as the table shows it.
enum Verdict: Equatable {
    case met
    /// Met, yet listed in known-misses.txt: the line should go.
    case metButListed
    case missed
    case knownMiss
    /// Its build was not counted (`--no-debug`).
    case notMeasured

    var text: String {
        switch self {
        case .met: "MET"
        case .metButListed: "met — remove it from known-misses.txt"
        case .missed: "MISSED"
        case .knownMiss: "KNOWN MISS"
        case .notMeasured: "not measured"
        }
    }
}

/// Instruction counts are deterministic with a fixed hash seed (Contextual's repeat exactly, the peers'
/// within about 0.1%): a ratio within 0.5% of its target counts as met, enough for the peers' spread and
/// too little to hide a regression.
let margin = 0.005

struct Judged {
    let target: CountTarget
    let contextual: Figures?
    let peer: Figures?
    /// The ratio (peer over Contextual, in instructions) or the allocations per operation.
    let value: Double?
    let verdict: Verdict
}

func judge(_ target: CountTarget, figures: [Measure: Figures], knownMisses: Set<String>) -> Judged {
    let listed = knownMisses.contains(target.name)
    func verdict(met: Bool) -> Verdict {
        switch (met, listed) {
        case (true, false): .met
        case (true, true): .metButListed
        case (false, true): .knownMiss
        case (false, false): .missed
        }
    }
    switch target.requirement {
    case .ratio(let contextual, let peer, let required):
        guard let mine = figures[contextual], let theirs = figures[peer] else {
            return Judged(target: target, contextual: nil, peer: nil, value: nil, verdict: .notMeasured)
        }
        let ratio = theirs.instructions / max(mine.instructions, 1)
        return Judged(
            target: target,
            contextual: mine,
            peer: theirs,
            value: ratio,
            verdict: verdict(met: ratio >= required * (1 - margin))
        )
    case .scaling(let small, let large, let atMost):
        guard let smaller = figures[small], let larger = figures[large] else {
            return Judged(target: target, contextual: nil, peer: nil, value: nil, verdict: .notMeasured)
        }
        let ratio = larger.instructions / max(smaller.instructions, 1)
        return Judged(
            target: target,
            contextual: larger,
            peer: smaller,
            value: ratio,
            verdict: verdict(met: ratio <= atMost)
        )
    case .perUnit(let small, let large, let units, let atMost):
        guard let smaller = figures[small], let larger = figures[large] else {
            return Judged(target: target, contextual: nil, peer: nil, value: nil, verdict: .notMeasured)
        }
        let each = (larger.instructions - smaller.instructions) / Double(units)
        return Judged(
            target: target,
            contextual: larger,
            peer: smaller,
            value: each,
            verdict: verdict(met: each <= atMost * (1 + margin))
        )
    case .allocations(let measure, let atMost):
        guard let mine = figures[measure] else {
            return Judged(target: target, contextual: nil, peer: nil, value: nil, verdict: .notMeasured)
        }
        return Judged(
            target: target,
            contextual: mine,
            peer: nil,
            value: mine.allocations,
            verdict: verdict(met: mine.allocations <= atMost + 0.05)
        )
    }
}

// MARK: - The table

/// `1234567.8` as "1,234,568"; below 100 with one decimal.
func formatCount(_ value: Double) -> String {
    if abs(value) < 100 {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
    var digits = String(Int(value.rounded()))
    var result = ""
    while digits.count > 3 {
        result = "," + digits.suffix(3) + result
        digits.removeLast(3)
    }
    return digits + result
}

/// A ratio with two decimals (0.87x), as a whole number from 10 on (38x), and with two significant digits
/// below 0.1, so that a far miss does not read as 0.0x (0.0026x).
func formatRatio(_ value: Double) -> String {
    if value >= 10 { return String(Int(value.rounded())) + "x" }
    if value > 0 && value < 0.1 {
        var scale = 10.0
        while value * scale < 10 { scale *= 10 }
        return String((value * scale).rounded() / scale) + "x"
    }
    return String((value * 100).rounded() / 100) + "x"
}

func describe(_ figures: Figures?) -> String {
    guard let figures else { return "—" }
    return "\(formatCount(figures.instructions)) Ir, \(formatCount(figures.allocations)) allocs"
}

/// The verdicts as a Markdown table: each system's instructions and allocations per operation, the
/// ratio and what is required.
func markdownTable(_ judged: [Judged]) -> String {
    var table = "| target | Contextual (per op) | peer (per op) | measured | required | result |\n"
    table += "|---|---:|---:|---:|---:|---|\n"
    for entry in judged {
        var row = "| \(entry.target.name) | "
        switch entry.target.requirement {
        case .ratio(let contextual, let peer, let required):
            row += "\(describe(entry.contextual)) | \(peerName(peer, besides: contextual)): \(describe(entry.peer)) | "
            row += (entry.value.map(formatRatio) ?? "—") + " | "
            row +=
                required >= 1
                ? "≥ \(formatRatio(required))" : "≥ \(formatRatio(required)) (within \(formatRatio(1 / required)))"
        case .allocations(_, let atMost):
            row += "\(describe(entry.contextual)) | — | \(entry.value.map { "\(formatCount($0)) allocs" } ?? "—") | "
            row += "≤ \(formatCount(atMost)) allocs"
        case .scaling(let small, _, let atMost):
            let instructions = { (figures: Figures?) in figures.map { "\(formatCount($0.instructions)) Ir" } ?? "—" }
            row += "\(instructions(entry.contextual)) | \(small.group): \(instructions(entry.peer)) | "
            row += (entry.value.map(formatRatio) ?? "—") + " | ≤ \(formatRatio(atMost))"
        case .perUnit(let small, _, _, let atMost):
            let instructions = { (figures: Figures?) in figures.map { "\(formatCount($0.instructions)) Ir" } ?? "—" }
            row += "\(instructions(entry.contextual)) | \(small.group): \(instructions(entry.peer)) | "
            row += (entry.value.map { "\(formatCount($0)) Ir each" } ?? "—") + " | ≤ \(formatCount(atMost)) Ir each"
        }
        table += row + " | \(entry.verdict.text) |\n"
    }
    return table
}

/// The peer's column: its system, or the scenario when both rows are Contextual's.
private func peerName(_ peer: Measure, besides contextual: Measure) -> String {
    peer.system == contextual.system ? peer.group : peer.system.rawValue
}
