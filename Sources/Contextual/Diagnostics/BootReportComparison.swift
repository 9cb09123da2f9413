// `BootReportComparison`: what changed between a boot report and its baseline, with a verdict for CI.

// MARK: - BootReportComparison

/// What changed between a boot report and a baseline (``BootReport/compared(to:timeTolerance:minimumSeconds:)``):
/// providers added or removed, edges added or removed, factories slower than the tolerance, new problems;
/// ``passed`` is the verdict a CI step fails on.
///
/// ```swift
/// let comparison = try report.compared(to: baseline, timeTolerance: 3)
/// print(comparison.summary)
/// if !comparison.passed { exit(1) }
/// ```
public struct BootReportComparison: Sendable, Codable, Hashable {
    /// An edge of the dependency graph: `from` resolved `to`.
    ///
    /// ```swift
    /// comparison.addedEdges.map { "\($0.from) → \($0.to)" }
    /// ```
    public struct Edge: Sendable, Codable, Hashable, Comparable {
        /// The provider whose factory resolved ``to``.
        ///
        /// ```swift
        /// edge.from  // "Service (singleton)"
        /// ```
        public var from: String
        /// The provider resolved.
        ///
        /// ```swift
        /// edge.to  // "Database (singleton)"
        /// ```
        public var to: String

        /// Makes an edge.
        ///
        /// ```swift
        /// let edge = BootReportComparison.Edge(from: "A (singleton)", to: "B (singleton)")
        /// ```
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }

        /// Orders edges by `from`, then `to`.
        ///
        /// ```swift
        /// edges.sorted()
        /// ```
        public static func < (lhs: Edge, rhs: Edge) -> Bool { (lhs.from, lhs.to) < (rhs.from, rhs.to) }
    }

    /// A factory slower than its baseline by more than the tolerance.
    ///
    /// ```swift
    /// for slower in comparison.slower { print(slower.provider, slower.ratio) }
    /// ```
    public struct Slowdown: Sendable, Codable, Hashable {
        /// The provider's ``BootReport/Provider/id``.
        ///
        /// ```swift
        /// slowdown.provider  // "Database (singleton)"
        /// ```
        public var provider: String
        /// Its own time in the baseline, in seconds.
        ///
        /// ```swift
        /// slowdown.baselineSeconds
        /// ```
        public var baselineSeconds: Double
        /// Its own time now, in seconds.
        ///
        /// ```swift
        /// slowdown.currentSeconds
        /// ```
        public var currentSeconds: Double
        /// `currentSeconds / baselineSeconds`.
        ///
        /// ```swift
        /// slowdown.ratio  // 4.2
        /// ```
        public var ratio: Double
    }

    /// The providers in the report and not in the baseline, by id.
    ///
    /// ```swift
    /// comparison.addedProviders  // ["Cache (singleton)"]
    /// ```
    public var addedProviders: [String]
    /// The providers in the baseline and not in the report, by id.
    ///
    /// ```swift
    /// comparison.removedProviders
    /// ```
    public var removedProviders: [String]
    /// The edges in the report and not in the baseline: a dependency a change pulled into the boot path.
    ///
    /// ```swift
    /// comparison.addedEdges
    /// ```
    public var addedEdges: [Edge]
    /// The edges in the baseline and not in the report.
    ///
    /// ```swift
    /// comparison.removedEdges
    /// ```
    public var removedEdges: [Edge]
    /// The factories whose own time grew by more than the tolerance, slowest ratio first (empty when
    /// times were not compared).
    ///
    /// ```swift
    /// comparison.slower.first?.ratio
    /// ```
    public var slower: [Slowdown]
    /// The problems in the report whose message is not in the baseline's.
    ///
    /// ```swift
    /// comparison.newProblems.map(\.message)
    /// ```
    public var newProblems: [BootReport.Problem]
    /// The longest dependency path in the baseline and in the report.
    ///
    /// ```swift
    /// comparison.longestPath  // [3, 4]: one level deeper
    /// ```
    public var longestPath: [Int]

    /// The verdict: nothing added, removed, slower or newly failing. A CI step fails when it is false;
    /// when a change was meant, write the report as the new baseline.
    ///
    /// ```swift
    /// if !comparison.passed { print(comparison.summary); exit(1) }
    /// ```
    public var passed: Bool {
        addedProviders.isEmpty && removedProviders.isEmpty && addedEdges.isEmpty && removedEdges.isEmpty
            && slower.isEmpty && newProblems.isEmpty
    }

    /// What changed, in lines a CI log shows, ending with the verdict.
    ///
    /// ```swift
    /// print(comparison.summary)  // "…\nverdict: passed"
    /// ```
    public var summary: String {
        var lines: [String] = []
        lines += addedProviders.map { "provider added: \($0)" }
        lines += removedProviders.map { "provider removed: \($0)" }
        lines += addedEdges.map { "dependency added: \($0.from) → \($0.to)" }
        lines += removedEdges.map { "dependency removed: \($0.from) → \($0.to)" }
        lines += slower.map { slowdown in
            let ratio = (slowdown.ratio * 100).rounded() / 100
            return "slower: \(slowdown.provider), \(ratio)x its baseline"
        }
        lines += newProblems.map { "new problem: [\($0.code)] \($0.message)" }
        // Two counts when the comparison made them; a comparison decoded from elsewhere may hold others.
        if longestPath.count == 2 {
            lines.append("longest dependency path: \(longestPath[0]) in the baseline, \(longestPath[1]) now")
        }
        lines.append("verdict: \(passed ? "passed" : "failed")")
        return lines.joined(separator: "\n")
    }

    init(
        addedProviders: [String],
        removedProviders: [String],
        addedEdges: [Edge],
        removedEdges: [Edge],
        slower: [Slowdown],
        newProblems: [BootReport.Problem],
        longestPath: [Int]
    ) {
        self.addedProviders = addedProviders
        self.removedProviders = removedProviders
        self.addedEdges = addedEdges
        self.removedEdges = removedEdges
        self.slower = slower
        self.newProblems = newProblems
        self.longestPath = longestPath
    }
}
