// MARK: - The scenarios of issue 13

/// The scenarios issue 13 added, for its targets a-f: counted in instructions and allocations by
/// `contextual-count` (with rows of `allScenarios`) and measured by package-benchmark, but not timed by
/// `contextual-compare`, whose table and targets stay those of the warm paths.
public let countedScenarios: [Scenario] = serverScenarios + updateScenarios + notifyScenarios + classFormScenarios

/// Every scenario: those `contextual-compare` times, then ``countedScenarios``.
public let everyScenario: [Scenario] = allScenarios + countedScenarios
