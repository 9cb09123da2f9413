import Dispatch
import Peers
import Synchronization

// MARK: - One scenario, alone

/// Runs the work of the scenario named `name` (`group · system`) `iterations` times, after its set-up and
/// a warm-up: what valgrind counts. Returns the scenario's prepared work, or nil when no scenario has that
/// name.
///
/// The caller keeps what it returns until the process exits. Released, the set-up (10,000 registrations,
/// say) is torn down by whichever thread drops it last: the task of a scenario that awaits (`waitFor`),
/// when that task ends after the main thread stopped waiting for it, and then the exit may or may not let
/// the teardown finish: counted in one run and not in the other, it would put tens of millions of
/// instructions between two runs at n = 10,000, enough to fail a scaling target by chance.
///
/// On the main thread, by default; `inTask` runs it inside a task instead, as package-benchmark does (its
/// runner is an `async` main), where task-local values take their memory from the task's allocator
/// rather than `malloc`.
func runOne(_ name: String, iterations: Int, warmUp: Int, inTask: Bool) -> PreparedWork? {
    let scenarios =
        everyScenario + scalingScenarios + testContextScenarios + scopedObjectsScenarios + referenceValueScenarios
    guard let scenario = scenarios.first(where: { $0.name == name }) else { return nil }
    let prepared = PreparedWork()
    let work: @Sendable () -> Void = {
        let run = scenario.prepare()
        prepared.run.withLock { $0 = run }
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
    return prepared
}

/// A scenario's prepared work, kept by `--run-one` until the process exits (see
/// ``runOne(_:iterations:warmUp:inTask:)``): written by the thread that runs the scenario, never read.
final class PreparedWork: Sendable {
    /// The scenario's work, set once its set-up is made.
    let run = Mutex<(@Sendable (Int) -> Void)?>(nil)
}
