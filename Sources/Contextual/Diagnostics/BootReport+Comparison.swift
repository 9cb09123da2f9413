// Comparing a boot report with a baseline: structure, then times with a tolerance.

// MARK: - Comparison

extension BootReport {
    /// What changed since `baseline`: providers and edges added or removed, new problems, and the
    /// factories whose own time grew by more than `timeTolerance` (a ratio, since CI machines differ).
    ///
    /// ```swift
    /// let baseline = try BootReport(contentsOfFile: "boot-baseline.json")
    /// let comparison = try report.compared(to: baseline, timeTolerance: 2)  // fail at twice as slow
    /// if !comparison.passed { print(comparison.summary) }
    /// ```
    ///
    /// - Parameters:
    ///   - baseline: A report of the same format version (of `main`, say).
    ///   - timeTolerance: How many times its baseline's own time a factory may take; `nil` compares the
    ///     structure only (what a CI of shared machines should do, or give a generous ratio).
    ///   - minimumSeconds: Factories whose own time is under this in the report are never called slower:
    ///     below a millisecond, a ratio is noise.
    /// - Throws: ``ContextError/Code/incompatibleBootReport`` when `baseline` is of another format version.
    public func compared(
        to baseline: BootReport,
        timeTolerance: Double? = nil,
        minimumSeconds: Double = 0.001
    ) throws(ContextError) -> BootReportComparison {
        guard baseline.formatVersion == formatVersion else {
            throw ContextError.bootReportFormat(
                found: baseline.formatVersion,
                expected: formatVersion,
                origin: .text("the baseline of '\(baseline.context)'")
            )
        }
        let old = Dictionary(baseline.providers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(providers.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let oldEdges = Set(
            baseline.providers.flatMap { p in p.dependencies.map { BootReportComparison.Edge(from: p.id, to: $0) } }
        )
        let newEdges = Set(
            providers.flatMap { p in p.dependencies.map { BootReportComparison.Edge(from: p.id, to: $0) } }
        )
        var slower: [BootReportComparison.Slowdown] = []
        if let timeTolerance {
            for provider in providers where provider.ownSeconds >= minimumSeconds {
                guard let before = old[provider.id], before.status == .built, provider.status == .built else {
                    continue
                }
                // A baseline under the noise floor counts as the floor: 0.1 ms to 5 ms is a 5x ratio.
                let reference = max(before.ownSeconds, minimumSeconds)
                let ratio = provider.ownSeconds / reference
                if ratio > timeTolerance {
                    slower.append(
                        .init(
                            provider: provider.id,
                            baselineSeconds: before.ownSeconds,
                            currentSeconds: provider.ownSeconds,
                            ratio: ratio
                        )
                    )
                }
            }
        }
        let oldProblems = Set(baseline.problems.map(\.message))
        return BootReportComparison(
            addedProviders: new.keys.filter { old[$0] == nil }.sorted(),
            removedProviders: old.keys.filter { new[$0] == nil }.sorted(),
            addedEdges: newEdges.subtracting(oldEdges).sorted(),
            removedEdges: oldEdges.subtracting(newEdges).sorted(),
            slower: slower.sorted { $0.ratio > $1.ratio },
            newProblems: problems.filter { !oldProblems.contains($0.message) },
            longestPath: [baseline.totals.longestPath, totals.longestPath]
        )
    }
}
