// MARK: - The counted scenarios

/// The scenarios for contextual-count's targets a-f: counted in instructions and allocations by
/// `contextual-count` (with rows of `allScenarios`) and measured by package-benchmark, but not timed by
/// `contextual-compare`, whose table and targets stay those of the warm paths.
public let countedScenarios: [Scenario] = serverScenarios + updateScenarios + notifyScenarios + classFormScenarios

/// Every scenario: those `contextual-compare` times, then ``countedScenarios``.
public let everyScenario: [Scenario] = allScenarios + countedScenarios
