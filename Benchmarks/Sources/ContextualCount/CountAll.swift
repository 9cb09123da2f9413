import Foundation
import Synchronization

// MARK: - Counting every scenario, side by side

/// One valgrind run: a scenario's instructions or allocations at one iteration count.
private struct Run: Sendable {
    enum Tool: Sendable { case callgrind, memcheck }

    let measure: Measure
    let runner: String
    let tool: Tool
    let iterations: Int
}

/// What the runs of the scenarios have counted so far.
private struct Progress: Sendable {
    /// Counts by scenario, tool and iteration count.
    var counts: [Measure: [Run.Tool: [Int: Int]]] = [:]
    /// Seconds spent in each scenario's runs.
    var seconds: [Measure: Double] = [:]
    /// Runs not finished yet, by scenario.
    var remaining: [Measure: Int] = [:]
    /// The first run that failed; the runs not started yet are then left out.
    var failure: String?
}

/// Counts every scenario under valgrind, at N and at 2N iterations, `jobs` runs at a time, and returns
/// the cost of one operation of each. A scenario's line is printed when its last run ends; a failed run
/// ends the program with its output.
///
/// Each run is a process of its own, with its own output directory, whose counts do not depend on what
/// else the machine runs: running them side by side changes the minutes, not the figures.
func countAll(
    _ measures: [Measure],
    releaseRunner: String,
    debugRunner: String?,
    jobs: Int,
    in directory: String
) -> [Measure: Figures] {
    var planned: [Run] = []
    var initial = Progress()
    for measure in measures {
        let runner: String
        switch measure.build {
        case .release: runner = releaseRunner
        case .debug:
            guard let debugRunner else { continue }
            runner = debugRunner
        }
        // A scaling target compares instructions only: its allocations are not counted (memcheck would
        // double the minutes of the largest size).
        let tools: [Run.Tool] = measure.countsAllocations ? [.callgrind, .memcheck] : [.callgrind]
        for tool in tools {
            for iterations in [measure.iterations, 2 * measure.iterations] {
                planned.append(Run(measure: measure, runner: runner, tool: tool, iterations: iterations))
            }
        }
        initial.remaining[measure] = 2 * tools.count
    }

    // The scenarios counted at the fewest iterations are those of the largest operations (the scaling
    // targets' largest sizes, up to two minutes a run): they start first, so that none starts last while
    // the other workers have nothing left. The workers share the list, read only.
    let runs = planned.enumerated().sorted { ($0.element.iterations, $0.offset) < ($1.element.iterations, $1.offset) }
        .map(\.element)
    let progress = Mutex(initial)
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, runs.count))) { worker in
        let valgrind = Valgrind(directory: directory + "/worker-\(worker)")
        try? FileManager.default.createDirectory(atPath: valgrind.directory, withIntermediateDirectories: true)
        while true {
            // Relaxed: the counter only hands out distinct indices; the results go through `progress`.
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < runs.count, progress.withLock({ $0.failure == nil }) else { return }
            let run = runs[index]
            let start = Date()
            let outcome: Result<Int, any Error> = Result {
                switch run.tool {
                case .callgrind:
                    try valgrind.instructions(
                        run.runner,
                        run.measure.scenarioName,
                        iterations: run.iterations,
                        warmUp: run.measure.warmUp
                    )
                case .memcheck:
                    try valgrind.allocations(
                        run.runner,
                        run.measure.scenarioName,
                        iterations: run.iterations,
                        warmUp: run.measure.warmUp
                    )
                }
            }
            let seconds = Date().timeIntervalSince(start)
            let line: String? = progress.withLock { progress in
                switch outcome {
                case .failure(let error):
                    if progress.failure == nil {
                        progress.failure = "counting \(run.measure.label) failed: \(error)"
                    }
                    return nil
                case .success(let count):
                    progress.counts[run.measure, default: [:]][run.tool, default: [:]][run.iterations] = count
                    progress.seconds[run.measure, default: 0] += seconds
                    progress.remaining[run.measure, default: 0] -= 1
                    guard progress.remaining[run.measure] == 0 else { return nil }
                    return describeLine(run.measure, measuredFigures(of: run.measure, in: progress), progress)
                }
            }
            if let line {
                print(line)
                fflush(nil)  // CI pipes the output through tee: each scenario shows as soon as it is done
            }
        }
    }

    let final = progress.withLock { $0 }
    if let failure = final.failure {
        print("contextual-count: \(failure)")
        exit(1)
    }
    var result: [Measure: Figures] = [:]
    for measure in final.counts.keys { result[measure] = measuredFigures(of: measure, in: final) }
    return result
}

/// One operation's cost: what 2N iterations count beyond N, over N.
private func measuredFigures(of measure: Measure, in progress: Progress) -> Figures {
    let counts = progress.counts[measure] ?? [:]
    func perOperation(_ tool: Run.Tool) -> Double {
        guard let byIterations = counts[tool], let single = byIterations[measure.iterations],
            let double = byIterations[2 * measure.iterations]
        else { return 0 }
        return Double(double - single) / Double(measure.iterations)
    }
    return Figures(instructions: perOperation(.callgrind), allocations: perOperation(.memcheck))
}

/// The line printed when a scenario's runs are done.
private func describeLine(_ measure: Measure, _ measured: Figures, _ progress: Progress) -> String {
    let shown = measure.countsAllocations ? describe(measured) : "\(formatCount(measured.instructions)) Ir"
    let seconds = Int((progress.seconds[measure] ?? 0).rounded())
    return "  \(measure.label), N = \(measure.iterations): \(shown) per operation (\(seconds) s of valgrind)"
}
