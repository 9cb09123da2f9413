// Turning a boot report's recorded builds into the report: entries, edges, totals (internal).
// Architecture: ARCHITECTURE.md, "The boot report's instruments".

// MARK: - BootReportAssembly

/// The recorded builds of a boot report, and what it takes to make the report of them.
struct BootReportAssembly {
    let context: String
    let providers: [any AnyProviderBox]
    let builds: [BootRecording.Build]
    let problems: [ContextError]
    let timedOut: Bool
    let deadline: Duration
    let elapsed: Duration

    /// The report: O(*p* + *b* + *e*) for *p* providers, *b* builds and *e* edges read.
    func report() -> BootReport {
        let now = ContinuousClock.now
        // Every provider seen, in the context's order, then those built on their behalf it does not see.
        var boxes = providers
        var indexByAddress: [UInt: Int] = [:]
        for (index, box) in boxes.enumerated() { indexByAddress[address(box)] = index }
        for build in builds where indexByAddress[address(build.provider)] == nil {
            indexByAddress[address(build.provider)] = boxes.count
            boxes.append(build.provider)
        }
        let ids = uniqueIDs(boxes)
        var entries = boxes.enumerated().map { index, box in
            BootReport.Provider(
                id: ids[index],
                name: (box as? any ReportedProvider)?.reportedName ?? box.label,
                lifetime: box.lifetime.description,
                registrar: (box as? any ReportedProvider)?.registrarName,
                status: .notBuilt,
                builds: 0
            )
        }
        var dependencies = Array(repeating: Set<Int>(), count: boxes.count)
        var succeeded = Array(repeating: false, count: boxes.count)
        for build in builds {
            guard let index = indexByAddress[address(build.provider)] else { continue }
            let wall = (build.end ?? now) - build.start
            entries[index].builds += 1
            entries[index].wallSeconds += wall.seconds
            entries[index].nestedSeconds += build.nested.seconds
            for read in build.reads {
                if let target = indexByAddress[read], target != index { dependencies[index].insert(target) }
            }
            if build.end == nil {
                entries[index].status = .building
                entries[index].failure = "still building at the deadline of \(deadline)"
            } else if let failure = build.failure {
                if entries[index].status != .building { entries[index].failure = failure.message }
            } else {
                succeeded[index] = true
            }
        }
        var reported = problems.map(BootReport.Problem.init)
        if timedOut {
            // Validation did not end, so it reported nothing: the failed builds are its problems so far.
            var seen = Set<String>()
            reported = builds.compactMap(\.failure).filter { seen.insert($0.message).inserted }
        }
        let failedLabels = Set(problems.flatMap { [$0.requestedType ?? ""] + $0.resolutionPath.suffix(1) })
        for index in entries.indices {
            entries[index].ownSeconds = max(0, entries[index].wallSeconds - entries[index].nestedSeconds)
            entries[index].dependencies = dependencies[index].map { ids[$0] }.sorted()
            if entries[index].status == .building {
                reported.append(
                    BootReport.Problem(
                        .stillBuilding(boxes[index].label, deadline: deadline, context: context)
                    )
                )
            } else if entries[index].failure != nil && !succeeded[index] {
                entries[index].status = .failed
            } else if succeeded[index] {
                entries[index].status = .built
                entries[index].failure = nil
            } else if failedLabels.contains(boxes[index].label) {
                entries[index].status = .failed
            }
        }
        let path = longestPath(dependencies).map { ids[$0] }
        let order = entries.indices.sorted { entries[$0].id < entries[$1].id }
        return BootReport(
            context: context,
            providers: order.map { entries[$0] },
            problems: reported,
            totals: BootReport.Totals(
                providers: entries.count,
                builds: builds.count,
                edges: dependencies.reduce(0) { $0 + $1.count },
                longestPath: path.count,
                longestPathProviders: path,
                bootSeconds: (timedOut ? deadline : elapsed).seconds
            )
        )
    }

    private func address(_ box: any AnyProviderBox) -> UInt {
        UInt(bitPattern: ObjectIdentifier(box))
    }

    /// The providers' labels, made unique with ` #2`, ` #3`… for the providers that share one.
    private func uniqueIDs(_ boxes: [any AnyProviderBox]) -> [String] {
        var seen: [String: Int] = [:]
        return boxes.map { box in
            let label = box.label
            let count = seen[label, default: 0] + 1
            seen[label] = count
            return count == 1 ? label : "\(label) #\(count)"
        }
    }

    /// The longest path through `edges` (provider to the providers it resolved), outermost first; a
    /// cycle (whose builds failed) is cut where it closes. Iterative: a chain of 10,000 does not recurse.
    private func longestPath(_ edges: [Set<Int>]) -> [Int] {
        let sorted = edges.map { $0.sorted() }
        // 0: unseen, 1: on the walk, 2: done.
        var state = Array(repeating: 0, count: edges.count)
        var length = Array(repeating: 0, count: edges.count)
        var next = Array(repeating: -1, count: edges.count)
        for root in edges.indices where state[root] == 0 {
            var stack: [(node: Int, child: Int)] = [(root, 0)]
            state[root] = 1
            while let (node, child) = stack.last {
                if child < sorted[node].count {
                    stack[stack.count - 1].child += 1
                    let target = sorted[node][child]
                    if state[target] == 0 {
                        state[target] = 1
                        stack.append((target, 0))
                    }
                    continue
                }
                var best = 0
                for target in sorted[node] where state[target] == 2 && length[target] > best {
                    best = length[target]
                    next[node] = target
                }
                length[node] = best + 1
                state[node] = 2
                stack.removeLast()
            }
        }
        guard var node = length.indices.max(by: { length[$0] < length[$1] }) else { return [] }
        var path = [node]
        while next[node] >= 0 {
            node = next[node]
            path.append(node)
        }
        return path
    }
}

// MARK: - ReportedProvider

/// What a report shows of a provider besides its label.
protocol ReportedProvider {
    var reportedName: String { get }
    var registrarName: String? { get }
}

extension ProviderBox: ReportedProvider {
    var reportedName: String { name }
}

// MARK: - Duration in seconds

extension Duration {
    /// The duration in seconds, as a JSON number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
