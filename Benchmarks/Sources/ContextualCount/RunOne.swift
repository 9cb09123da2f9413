import Peers

// MARK: - One scenario, alone

/// Runs the work of the scenario named `name` (`group · system`) `iterations` times, after its set-up and
/// a warm-up: what valgrind counts. Returns false when no scenario has that name.
func runOne(_ name: String, iterations: Int, warmUp: Int) -> Bool {
    guard let scenario = everyScenario.first(where: { $0.name == name }) else { return false }
    let run = scenario.prepare()
    run(warmUp)
    run(iterations)
    return true
}
