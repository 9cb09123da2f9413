// The rules of a boot report's format, checked on a report read from outside (a baseline is outside input).

// MARK: - Format rules

extension BootReport {
    /// The longest time a report may hold, in seconds (about 31 years): a measured time is far below it,
    /// and a time above it is a hand-edited or corrupt file.
    static let maximumSeconds: Double = 1e9

    /// The lifetimes a report names (``Lifetime``'s descriptions).
    static let lifetimeNames = Set([Lifetime.singleton, .scoped, .transient].map(\.description))

    /// A rule of the format that a report breaks: the JSON field (`providers[2].lifetime`) and what is
    /// wrong with it, in words that follow the field's name.
    struct FormatViolation: Error, Equatable {
        var field: String
        var problem: String
    }

    /// The first rule of the format this report breaks, or nil when it keeps them all: what every report
    /// ``Context/bootReport(deadline:)`` makes keeps, so that a report read back is one this library
    /// could have made.
    ///
    /// - Complexity: O(*p* + *e*) for *p* providers and *e* edges.
    func formatViolation() -> FormatViolation? {
        do {
            let index = try providerIndex()
            let edges = try dependencyEdges(index)
            try checkTotals(index, edges)
            return nil
        } catch {
            return error
        }
    }

    /// Each provider's position by id, checking each provider's own fields on the way.
    private func providerIndex() throws(FormatViolation) -> [String: Int] {
        var index: [String: Int] = [:]
        index.reserveCapacity(providers.count)
        for (position, provider) in providers.enumerated() {
            let field = "providers[\(position)]"
            if let earlier = index[provider.id] {
                throw FormatViolation(
                    field: "\(field).id",
                    problem: "is \(shown(provider.id)), the id of `providers[\(earlier)]` too: ids are unique in a "
                        + "report"
                )
            }
            index[provider.id] = position
            try check(provider, field: field)
        }
        return index
    }

    /// One provider's lifetime, build count and times.
    private func check(_ provider: Provider, field: String) throws(FormatViolation) {
        let of = "of \(shown(provider.id))"
        guard Self.lifetimeNames.contains(provider.lifetime) else {
            throw FormatViolation(
                field: "\(field).lifetime",
                problem: "\(of) is \(shown(provider.lifetime)), which is not a lifetime: singleton, scoped or "
                    + "transient"
            )
        }
        guard provider.builds >= 0 else {
            throw FormatViolation(
                field: "\(field).builds",
                problem: "\(of) is \(provider.builds): a count is never negative"
            )
        }
        // A provider built, or still building, ran its factory; one not built did not.
        let ran = provider.status == .built || provider.status == .building
        if ran && provider.builds == 0 {
            throw FormatViolation(
                field: "\(field).builds",
                problem: "\(of) is 0, but its status is \(provider.status.rawValue): its factory ran at least once"
            )
        }
        if provider.status == .notBuilt && provider.builds != 0 {
            throw FormatViolation(
                field: "\(field).builds",
                problem: "\(of) is \(provider.builds), but its status is notBuilt: its factory did not run"
            )
        }
        try checkTime(provider.wallSeconds, field: "\(field).wallSeconds", of: of)
        try checkTime(provider.nestedSeconds, field: "\(field).nestedSeconds", of: of)
        try checkTime(provider.ownSeconds, field: "\(field).ownSeconds", of: of)
        // Both are sums of the same builds' times: they may differ by a rounding, no more.
        guard provider.nestedSeconds <= provider.wallSeconds + Self.rounding(provider.wallSeconds) else {
            throw FormatViolation(
                field: "\(field).nestedSeconds",
                problem: "\(of) is \(provider.nestedSeconds), more than its `wallSeconds` (\(provider.wallSeconds)), "
                    + "of which it is a part"
            )
        }
        let own = max(0, provider.wallSeconds - provider.nestedSeconds)
        guard abs(provider.ownSeconds - own) <= Self.rounding(provider.wallSeconds) else {
            throw FormatViolation(
                field: "\(field).ownSeconds",
                problem: "\(of) is \(provider.ownSeconds), but `wallSeconds` minus `nestedSeconds` is \(own)"
            )
        }
    }

    /// The dependencies of each provider, by position, checking that each names another provider once.
    private func dependencyEdges(_ index: [String: Int]) throws(FormatViolation) -> [[Int]] {
        var edges: [[Int]] = []
        edges.reserveCapacity(providers.count)
        for (position, provider) in providers.enumerated() {
            var targets: [Int] = []
            targets.reserveCapacity(provider.dependencies.count)
            var seen = Set<Int>()
            for (item, dependency) in provider.dependencies.enumerated() {
                let field = "providers[\(position)].dependencies[\(item)]"
                guard let target = index[dependency] else {
                    throw FormatViolation(
                        field: field,
                        problem: "of \(shown(provider.id)) is \(shown(dependency)), which is the id of no provider "
                            + "in the report"
                    )
                }
                guard target != position else {
                    throw FormatViolation(
                        field: field,
                        problem: "of \(shown(provider.id)) is the provider itself: a factory's own build is no edge"
                    )
                }
                guard seen.insert(target).inserted else {
                    throw FormatViolation(
                        field: field,
                        problem: "of \(shown(provider.id)) is \(shown(dependency)) again: an edge is listed once"
                    )
                }
                targets.append(target)
            }
            edges.append(targets)
        }
        return edges
    }

    /// The totals against the providers they sum up.
    private func checkTotals(_ index: [String: Int], _ edges: [[Int]]) throws(FormatViolation) {
        guard totals.providers == providers.count else {
            throw FormatViolation(
                field: "totals.providers",
                problem: "is \(totals.providers), but the report lists \(providers.count) providers"
            )
        }
        var builds = 0
        var overflow = false
        for provider in providers where !overflow {
            (builds, overflow) = builds.addingReportingOverflow(provider.builds)
        }
        guard !overflow, totals.builds == builds else {
            let sum = overflow ? "more than \(Int.max)" : "\(builds)"
            throw FormatViolation(
                field: "totals.builds",
                problem: "is \(totals.builds), but the providers' `builds` add up to \(sum)"
            )
        }
        let edgeCount = edges.reduce(0) { $0 + $1.count }
        guard totals.edges == edgeCount else {
            throw FormatViolation(
                field: "totals.edges",
                problem: "is \(totals.edges), but the providers' `dependencies` hold \(edgeCount) edges"
            )
        }
        try checkTime(totals.bootSeconds, field: "totals.bootSeconds", of: nil)
        try checkLongestPath(index, edges)
    }

    /// The longest path: a path of the graph, as long as its count says, and the longest one when the
    /// graph has no cycle (with one, whose builds failed, the report cuts it where it closes).
    private func checkLongestPath(_ index: [String: Int], _ edges: [[Int]]) throws(FormatViolation) {
        let path = totals.longestPathProviders
        guard totals.longestPath == path.count else {
            throw FormatViolation(
                field: "totals.longestPath",
                problem: "is \(totals.longestPath), but `longestPathProviders` lists \(path.count) providers"
            )
        }
        var previous: Int?
        var seen = Set<Int>()
        for (item, id) in path.enumerated() {
            let field = "totals.longestPathProviders[\(item)]"
            guard let position = index[id] else {
                throw FormatViolation(
                    field: field,
                    problem: "is \(shown(id)), which is the id of no provider in the report"
                )
            }
            guard seen.insert(position).inserted else {
                throw FormatViolation(field: field, problem: "is \(shown(id)) again: a path visits a provider once")
            }
            if let previous, !edges[previous].contains(position) {
                throw FormatViolation(
                    field: field,
                    problem: "is \(shown(id)), which \(shown(providers[previous].id)) before it does not depend on"
                )
            }
            previous = position
        }
        guard !providers.isEmpty else { return }
        guard let longest = Self.longestAcyclicPath(edges) else { return }
        guard totals.longestPath == longest else {
            throw FormatViolation(
                field: "totals.longestPath",
                problem: "is \(totals.longestPath), but the longest dependency path has \(longest) providers"
            )
        }
    }

    /// A time: a number of seconds, finite, from 0 to ``maximumSeconds``.
    private func checkTime(_ seconds: Double, field: String, of subject: String?) throws(FormatViolation) {
        guard seconds.isFinite, seconds >= 0, seconds <= Self.maximumSeconds else {
            throw FormatViolation(
                field: field,
                problem: (subject.map { "\($0) " } ?? "") + "is \(seconds): a time is a number of seconds from 0 "
                    + "to 1e9 (about 31 years)"
            )
        }
    }

    /// The providers on the longest path of `edges`, or nil when they hold a cycle. O(*p* + *e*).
    static func longestAcyclicPath(_ edges: [[Int]]) -> Int? {
        // Kahn's order from the providers nothing depends on; the lengths are made in reverse.
        var incoming = Array(repeating: 0, count: edges.count)
        for targets in edges { for target in targets { incoming[target] += 1 } }
        var order = edges.indices.filter { incoming[$0] == 0 }
        var next = 0
        while next < order.count {
            for target in edges[order[next]] {
                incoming[target] -= 1
                if incoming[target] == 0 { order.append(target) }
            }
            next += 1
        }
        guard order.count == edges.count else { return nil }
        var length = Array(repeating: 1, count: edges.count)
        for node in order.reversed() {
            for target in edges[node] { length[node] = max(length[node], length[target] + 1) }
        }
        return length.max() ?? 0
    }

    /// What two sums of the same times may differ by: a rounding, relative to `seconds`.
    private static func rounding(_ seconds: Double) -> Double {
        1e-9 * max(1, seconds)
    }

    /// A text of the report, quoted, escaped and cut to 80 characters, for a message.
    private func shown(_ text: String) -> String {
        var cut = Substring(text).prefix(80)
        if cut.endIndex != text.endIndex { cut += "…" }
        return String(reflecting: String(cut))
    }
}
