import Dispatch
import Peers

// MARK: - One scenario, alone

/// Runs the work of the scenario named `name` (`group · system`) `iterations` times, after its set-up and
/// a warm-up: what valgrind counts. Returns false when no scenario has that name.
///
/// On the main thread, by default; `inTask` runs it inside a task instead, as package-benchmark does (its
/// runner is an `async` main), where task-local values take their memory from the task's allocator
/// rather than `malloc`.
func runOne(_ name: String, iterations: Int, warmUp: Int, inTask: Bool) -> Bool {
    let scenarios =
        everyScenario + scalingScenarios + testContextScenarios + scopedObjectsScenarios + referenceValueScenarios
    guard let scenario = scenarios.first(where: { $0.name == name }) else { return false }
    let work: @Sendable () -> Void = {
        let run = scenario.prepare()
        run(warmUp)
        run(iterations)
    }
    if inTask {
        let done = DispatchSemaphore(value: 0)
        Task {
            work()
            done.signal()
        }
        done.wait()
    } else {
        work()
    }
    return true
}
