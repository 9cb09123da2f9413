import Benchmark
import Peers

// Every scenario of `Peers`, for every system, measured by package-benchmark: wall time, allocations and
// (where the machine supports it) instructions. Each iteration runs the work 1,000 times (`.kilo`), so
// `mallocCountTotal` reads as allocations per 1,000 operations; set-up runs before the measurement starts. CI checks that count against the stored
// thresholds in `Thresholds/swift-MAJOR.MINOR/`, one folder per toolchain (see `.ci/run`).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .instructions, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .milliseconds(300),
        maxIterations: 200,
        thresholds: [
            // Allocations are deterministic: any increase is a regression.
            .mallocCountTotal: .init(relative: [.p90: 0], absolute: [.p90: 0])
        ]
    )
    for scenario in everyScenario {
        var configuration = Benchmark.defaultConfiguration
        if groupsRunningInTasks.contains(scenario.group) {
            // Within 100 per 1,000 operations (1%): the task allocator's slabs, not the library (an
            // allocation more per operation is 1,000 more, about 9%, and still fails).
            configuration.thresholds = [.mallocCountTotal: .init(relative: [.p90: 1], absolute: [.p90: 100])]
        }
        Benchmark(scenario.benchmarkName, configuration: configuration) { benchmark in
            let run = scenario.prepare()
            benchmark.startMeasurement()
            run(benchmark.scaledIterations.count)
        }
    }
}
