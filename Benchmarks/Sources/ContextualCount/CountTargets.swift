import Peers

// MARK: - What is counted

/// The build a measure runs in: the release build of `contextual-count`, or its debug build (target g).
enum Build: String, Sendable {
    case release, debug
}

/// One scenario of one system, counted at `iterations` and twice that: the difference over `iterations`
/// is the cost of one operation, without start-up or set-up.
struct Measure: Hashable, Sendable {
    let group: String
    let system: System
    let iterations: Int
    var build: Build = .release
    /// Runs before those counted (and at both counts), so that what happens once is not counted.
    var warmUp = 100
    /// Whether its allocations are counted too (memcheck), besides its instructions.
    var countsAllocations = true

    /// The scenario's name, as `--run-one` takes it.
    var scenarioName: String { "\(group) · \(system.rawValue)" }
    var label: String { scenarioName + (build == .debug ? " (debug build)" : "") }
}

/// Instructions and allocations per operation.
struct Figures: Sendable {
    let instructions: Double
    let allocations: Double
}

/// What a target requires.
enum Requirement: Sendable {
    /// `peer`'s instructions over `contextual`'s at least `required` (below 1: "within 1/required").
    case ratio(contextual: Measure, peer: Measure, required: Double)
    /// At most `atMost` allocations per operation.
    case allocations(Measure, atMost: Double)
    /// `large`'s instructions over `small`'s at most `atMost`: a size ten times larger costs at most
    /// `atMost` times more.
    case scaling(small: Measure, large: Measure, atMost: Double)
    /// `large`'s instructions less `small`'s, over the `units` that `large` does more, at most `atMost`
    /// instructions: what each unit (a scoped object) costs.
    case perUnit(small: Measure, large: Measure, units: Int, atMost: Double)

    var measures: [Measure] {
        switch self {
        case .ratio(let contextual, let peer, _): [contextual, peer]
        case .allocations(let measure, _): [measure]
        case .scaling(let small, let large, _): [small, large]
        case .perUnit(let small, let large, _, _): [small, large]
        }
    }
}

/// A performance target, by the exact name `known-misses.txt` lists it under.
struct CountTarget: Sendable {
    let name: String
    let requirement: Requirement
}

// MARK: - The targets

/// Iterations for work of thousands of instructions (a scope, an update, a first resolve), of hundreds
/// (a notification, a debug read) and of tens (a warm read).
private let expensive = 200
private let medium = 2_000
private let cheap = 20_000

private let serverRequest = Measure(group: serverRequestGroup, system: .contextual, iterations: expensive)
private let scopedObject = Measure(group: scopedObjectGroup, system: .contextual, iterations: expensive)

/// Every target this counter checks (target h stays with contextual-compare's timings).
let countTargets: [CountTarget] =
    [
        CountTarget(
            name: "a. request as a server runs it vs swift-dependencies ≥ 3x (instructions)",
            requirement: .ratio(
                contextual: serverRequest,
                peer: Measure(group: serverRequestGroup, system: .dependencies, iterations: expensive),
                required: 3
            )
        ),
        CountTarget(
            name: "a. request as a server runs it: at most 8 allocations",
            requirement: .allocations(serverRequest, atMost: 8)
        ),
        CountTarget(
            name: "b. scope { } + 1 scoped object + 1 read vs withDependencies + 2 reads ≥ 3x (instructions)",
            requirement: .ratio(
                contextual: scopedObject,
                peer: Measure(group: scopedObjectGroup, system: .dependencies, iterations: expensive),
                required: 3
            )
        ),
        CountTarget(
            name: "b. scope { } + 1 scoped object + 1 read: at most 8 allocations",
            requirement: .allocations(scopedObject, atMost: 8)
        ),
        CountTarget(
            name: "c. lazy singleton first resolve vs Swinject ≥ 1.5x (instructions)",
            requirement: .ratio(
                contextual: Measure(group: lazyFirstGroup, system: .contextual, iterations: expensive),
                peer: Measure(group: lazyFirstGroup, system: .swinject, iterations: expensive),
                required: 1.5
            )
        ),
        CountTarget(
            name: "d. root update + first read at a leaf no dearer than swift-dependencies' override (instructions)",
            requirement: .ratio(
                contextual: Measure(group: updateFirstReadGroup, system: .contextual, iterations: expensive),
                peer: Measure(group: updateFirstReadGroup, system: .dependencies, iterations: expensive),
                required: 1
            )
        ),
        CountTarget(
            name: "d. steady read after an update within 1.5x of a tree never updated (instructions)",
            requirement: .ratio(
                contextual: Measure(group: steadyAfterUpdateGroup, system: .contextual, iterations: cheap),
                peer: Measure(group: steadyNeverUpdatedGroup, system: .contextual, iterations: cheap),
                required: 1 / 1.5
            )
        ),
        // Target d again with the values users store: a `String` (its first read at a different leaf each
        // time, so that no leaf is up to date), and a `String` or a configuration struct read steadily.
        CountTarget(
            name: "d. root update of a String + first read at a different leaf no dearer than swift-dependencies' "
                + "override (instructions)",
            requirement: .ratio(
                // An update costs millions of instructions here: 10 of them are enough to count.
                contextual: Measure(group: updateStringFirstReadGroup, system: .contextual, iterations: 10, warmUp: 2),
                peer: Measure(group: updateStringFirstReadGroup, system: .dependencies, iterations: expensive),
                required: 1
            )
        ),
        CountTarget(
            name: "d. steady read of a String after an update within 1.5x of a tree never updated (instructions)",
            requirement: .ratio(
                contextual: Measure(
                    group: steadyStringAfterUpdateGroup,
                    system: .contextual,
                    iterations: cheap,
                    countsAllocations: false
                ),
                peer: Measure(
                    group: steadyStringNeverUpdatedGroup,
                    system: .contextual,
                    iterations: cheap,
                    countsAllocations: false
                ),
                required: 1 / 1.5
            )
        ),
        CountTarget(
            name: "d. steady read of a settings struct after an update within 1.5x of a tree never updated "
                + "(instructions)",
            requirement: .ratio(
                contextual: Measure(
                    group: steadySettingsAfterUpdateGroup,
                    system: .contextual,
                    iterations: cheap,
                    countsAllocations: false
                ),
                peer: Measure(
                    group: steadySettingsNeverUpdatedGroup,
                    system: .contextual,
                    iterations: cheap,
                    countsAllocations: false
                ),
                required: 1 / 1.5
            )
        ),
        CountTarget(
            name: "e. notify, 1 subscriber no dearer than OpenCombine @Published (instructions)",
            requirement: .ratio(
                contextual: Measure(group: notifyOneGroup, system: .contextual, iterations: medium),
                peer: Measure(group: notifyOneGroup, system: .openCombine, iterations: medium),
                required: 1
            )
        ),
        CountTarget(
            name: "e. notify, 0 subscribers no dearer than Observation (instructions)",
            requirement: .ratio(
                contextual: Measure(group: notifyNoneGroup, system: .contextual, iterations: medium),
                peer: Measure(group: notifyNoneGroup, system: .observation, iterations: medium),
                required: 1
            )
        ),
        CountTarget(
            name: "e. observed read no dearer than Observation (instructions)",
            requirement: .ratio(
                contextual: Measure(group: observedReadGroup, system: .contextual, iterations: cheap),
                peer: Measure(group: observedReadGroup, system: .observation, iterations: cheap),
                required: 1
            )
        ),
        CountTarget(
            name: "f. @Injected in a final class within 1.5x of the struct form (instructions)",
            requirement: .ratio(
                contextual: Measure(group: injectedInClassGroup, system: .contextual, iterations: cheap),
                peer: Measure(group: flagshipGroup, system: .contextual, iterations: cheap),
                required: 1 / 1.5
            )
        ),
        CountTarget(
            name:
                "f. Injected as a let of a final class, read as database(), within 1.5x of the struct form (instructions)",
            requirement: .ratio(
                contextual: Measure(group: injectedLetInClassGroup, system: .contextual, iterations: cheap),
                peer: Measure(group: flagshipGroup, system: .contextual, iterations: cheap),
                required: 1 / 1.5
            )
        ),
        CountTarget(
            name: "g. debug build: warm @Injected vs @Dependency ≥ 30x (instructions)",
            requirement: .ratio(
                contextual: Measure(group: flagshipGroup, system: .contextual, iterations: medium, build: .debug),
                peer: Measure(group: flagshipGroup, system: .dependencies, iterations: medium, build: .debug),
                required: 30
            )
        ),
        CountTarget(
            name: "g. debug build: scope { } + 1 scoped object + 1 read vs withDependencies ≥ 2x (instructions)",
            requirement: .ratio(
                contextual: Measure(
                    group: scopedObjectGroup,
                    system: .contextual,
                    iterations: expensive,
                    build: .debug
                ),
                peer: Measure(group: scopedObjectGroup, system: .dependencies, iterations: expensive, build: .debug),
                required: 2
            )
        ),
        CountTarget(
            name: "a scope's scoped objects past its first: at most 2,000 instructions each",
            requirement: .perUnit(
                small: Measure(group: scopedObjectsGroup(1), system: .contextual, iterations: expensive),
                large: Measure(group: scopedObjectsGroup(8), system: .contextual, iterations: expensive),
                units: 7,
                atMost: 2_000
            )
        ),
    ] + registrationTargets + operationTargets + perProviderTargets + testContextTargets

/// Registering providers is linear in their number: each size ten times larger costs at most 12x more
/// (amortized O(1) per registration, with room for caches that a larger table no longer fits).
private let registrationTargets: [CountTarget] = zip(registrationSizes, registrationSizes.dropFirst()).map {
    small,
    large in
    CountTarget(
        name: "registering \(large) providers in one block at most 12x \(small) (instructions)",
        requirement: .scaling(small: registration(small), large: registration(large), atMost: 12)
    )
}

/// Every other operation whose cost grows with a size is linear in it too: 10x the providers, members
/// or subscribers cost at most 12x.
private let operationTargets: [CountTarget] = scalingOperations.map { operation in
    let (small, large) = (operation.sizes[0], operation.sizes[1])
    return CountTarget(
        name: "\(operation.name): n = \(large) at most 12x n = \(small) (instructions)",
        requirement: .scaling(
            small: measure(operation.name, small),
            large: measure(operation.name, large),
            atMost: 12
        )
    )
}

/// What each provider adds to `validate()` and `bootReport()`, from the two sizes counted above: its label,
/// its checks and its build. Labels made with `String(describing:)`, which asks the runtime three
/// conformance questions and builds a `Mirror` for each type, made them cost about 25,000 and 82,000
/// instructions a provider; with names from the runtime's cache, about 16,000 and 55,000.
private let perProviderTargets: [CountTarget] = [
    ("validate n providers", 20_000.0),
    ("boot report of n providers", 65_000.0),
].compactMap { name, atMost in
    guard let operation = scalingOperations.first(where: { $0.name == name }) else { return nil }
    let (small, large) = (operation.sizes[0], operation.sizes[1])
    return CountTarget(
        name: "\(name): each provider past n = \(small) at most \(formatCount(atMost)) instructions",
        requirement: .perUnit(
            small: measure(name, small),
            large: measure(name, large),
            units: large - small,
            atMost: atMost
        )
    )
}

/// The operation named `name` at size `count`: counted as ``registration(_:)`` is.
private func measure(_ name: String, _ count: Int) -> Measure {
    Measure(
        group: scalingGroup(name, count),
        system: .contextual,
        iterations: max(1, 2_000 / count),
        warmUp: 0,
        countsAllocations: false
    )
}

/// One context made with `count` registrations: counted at 2,000 registrations in all at least. No warm-up:
/// what happens once (the types' metadata, the first allocations) happens in the first iteration of both
/// runs, so (count(2N) − count(N)) / N counts warm iterations alone, and the largest size, a run of up to
/// two minutes under valgrind, makes two contexts fewer than a warm-up of one would.
private func registration(_ count: Int) -> Measure {
    Measure(
        group: registrationGroup(count),
        system: .contextual,
        iterations: max(1, 2_000 / count),
        warmUp: 0,
        countsAllocations: false
    )
}

/// A read in a test context costs within 2x of the same read in production: a key no context sets (its
/// test value against the process-wide default), a `String` the root sets, and a warm `@Injected`.
private let testContextTargets: [CountTarget] = [
    ("a key no context sets", productionUnsetReadGroup, testUnsetReadGroup),
    ("a String the root sets", productionSetStringGroup, testSetStringGroup),
    ("@Injected of a key no context sets", productionInjectedUnsetGroup, testInjectedUnsetGroup),
].map { read, production, test in
    CountTarget(
        name: "test context: a read of \(read) within 2x of production (instructions)",
        requirement: .ratio(
            contextual: Measure(group: test, system: .contextual, iterations: cheap, countsAllocations: false),
            peer: Measure(group: production, system: .contextual, iterations: cheap, countsAllocations: false),
            required: 1 / 2
        )
    )
}
