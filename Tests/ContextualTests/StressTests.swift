// A randomized stress run of the engine: threads and tasks read, update, derive, scope,
// resolve, shut down, observe and register members at once, for a bounded time, and check after every
// operation and at the end that each reader sees its own branch's values and never an older version
// after a newer one, that scoped objects are built once per scope and shut down once, that everything
// built is released, that no handler runs after its cancellation returned, and that nothing hangs.
//
// CONTEXTUAL_STRESS_SECONDS sets how long it runs (2.5 s unless set); CONTEXTUAL_STRESS_SEED replays a
// seed, printed at the start and with every failure (it fixes each worker's sequence of operations; how
// the threads interleave is the machine's).

import Foundation
import Synchronization
import Testing

@testable import Contextual

@Suite("Stress: every operation of the engine at once, from threads and tasks")
struct StressTests {
    /// Threads of their own (real parallelism, and they may block on a shutdown), and tasks (async
    /// operations: `withScope`, `changes(of:)`, `prepare`, shutdowns awaited).
    static let threadCount = 4
    static let taskCount = 2

    @Test("Threads and tasks racing a random mix of operations keep every promise, and nothing hangs or leaks")
    func randomMix() async {
        let settings = StressSettings.fromEnvironment()
        print(
            "stress seed: \(settings.seed) (replay with CONTEXTUAL_STRESS_SEED=\(settings.seed)), "
                + "\(settings.seconds) s, \(Self.threadCount) threads and \(Self.taskCount) tasks"
        )
        for problem in settings.problems { Issue.record("\(problem)") }
        // The run's tasks, and this test's waits, on threads of its own: in a whole `swift test`, the other
        // tests keep the cooperative pool busy, and a wait resumed there seconds late.
        let executor = StressExecutor(threads: 2)
        defer { executor.stop() }
        await withTaskExecutorPreference(executor) {
            await Self.runAndCheck(settings, on: executor)
        }
    }

    /// The run, then the checks once the tree is gone, and the summary.
    static func runAndCheck(_ settings: StressSettings, on executor: StressExecutor) async {
        let started = ContinuousClock.now
        guard let outcome = await Self.run(settings, on: executor) else { return }
        let elapsed = ContinuousClock.now - started

        // Everything built is released once the tree is dropped (released on other threads a little later,
        // at most: the wait is bounded).
        let released = await waitUntil {
            outcome.lives.allSatisfy { $0.aliveCount == 0 } && outcome.contexts.allSatisfy { $0.context == nil }
        }
        if !released {
            let alive = outcome.lives.filter { $0.aliveCount != 0 }.map {
                "\($0.kind): \($0.aliveCount) of \($0.madeCount)"
            }
            let contexts = outcome.contexts.filter { $0.context != nil }.map(\.label)
            outcome.violations.record(
                "still alive \(waitLimit) after the run: \(alive), \(contexts.count) contexts \(contexts.prefix(8))"
            )
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "stress: \(outcome.counts.total) operations (\(outcome.counts.summary)) in "
                + "\(String(format: "%.2f", seconds)) s, seed \(settings.seed)"
        )
        let found = outcome.violations.first
        for violation in found {
            Issue.record("\(violation) (stress seed \(settings.seed): CONTEXTUAL_STRESS_SEED=\(settings.seed))")
        }
        for (kind, count) in outcome.violations.kinds where count > 3 {
            print("stress: \(count) violations like: \(kind)")
        }
        if outcome.violations.count > found.count {
            Issue.record(
                "… and \(outcome.violations.count - found.count) more violations (stress seed \(settings.seed))"
            )
        }
    }

    /// What the test checks once the tree is gone.
    struct Outcome {
        let counts: StressCounts
        let lives: [StressLive]
        let contexts: [StressWeakContext]
        let violations: StressViolations
    }

    /// Builds the tree, runs the workers until the deadline, checks what can be checked while the tree
    /// lives, and shuts it down; nil (with an issue recorded) when a worker did not finish.
    static func run(_ settings: StressSettings, on executor: StressExecutor) async -> Outcome? {
        let run = StressRun(settings: settings, executor: executor)
        let world = StressWorld(run: run)
        let statuses = (0..<(threadCount + taskCount)).map { _ in StressStatus() }
        let results = Locked<[StressWorkerResult]>.make([])
        let threads = StressThreads(
            (0..<threadCount).map { index in
                {
                    let worker = StressWorker(index: index, world: world, status: statuses[index], mayBlock: true)
                    let result = worker.work()
                    results.withLock { $0.append(result) }
                }
            }
        )
        for index in threadCount..<(threadCount + taskCount) {
            Task(executorPreference: run.executor) {
                let worker = StressTaskWorker(index: index, world: world, status: statuses[index])
                let result = await worker.work()
                results.withLock { $0.append(result) }
            }
        }
        // The watchdog: every worker stops at the deadline; one still running two minutes later is stuck.
        let grace = 120
        let limit = Duration.milliseconds(Int(settings.seconds * 1_000)) + .seconds(grace)
        let finished = await waitUntil(upTo: limit) {
            threads.allFinished && results.withLock { $0.count } == threadCount + taskCount
        }
        guard finished else {
            run.stopNow()
            let stuck = statuses.enumerated().map { "worker \($0.offset): \($0.element.current)" }
            let message =
                "stress: workers still running \(grace) s after the deadline (a hang): \(stuck) "
                + "(stress seed \(settings.seed): CONTEXTUAL_STRESS_SEED=\(settings.seed))"
            Issue.record("\(message)")
            return nil
        }
        var counts = StressCounts()
        var contexts: [StressWeakContext] = []
        var ledgers: [StressLedger] = []
        var live: [(StressSubscription, ObservationToken)] = []
        for result in results.withLock({ $0 }) {
            counts.add(result.counts)
            contexts += result.released
            ledgers += result.scopeLedgers
            live += result.live
            for subscription in result.ended {
                for problem in subscription.problems(cancelled: true) { run.violation(problem) }
            }
        }
        for (subscription, _) in live {
            for problem in subscription.problems(cancelled: false) { run.violation(problem) }
        }
        live = []
        checkLostUpdates(world)
        contexts += await shutDownAll(world, ledgers: ledgers)
        return Outcome(counts: counts, lives: run.lives, contexts: contexts, violations: run.violations)
    }

    /// Each value holds the version of the number of updates committed to it: none lost, none twice.
    static func checkLostUpdates(_ world: StressWorld) {
        let run = world.run
        func expectVersion(_ version: Int, _ key: StressKey, _ commits: [StressCounter], in label: String) {
            let count = commits[key.rawValue].count
            if version != count {
                run.violation("\(label) holds version \(version) of \(key) after \(count) updates committed")
            }
        }
        let root = world.root
        for key in [StressKey.rootStamp, .rootCode] {
            expectVersion(
                StressSubscription.version(of: key, in: root.context, expect: root.expect),
                key,
                world.rootCommits,
                in: "the root"
            )
        }
        for branch in world.branches {
            let middle = branch.middle
            for key in StressKey.branchValues + [.branchObject] {
                let version = StressSubscription.version(of: key, in: middle.context, expect: middle.expect)
                expectVersion(version, key, branch.commits, in: branch.name)
            }
            for leaf in branch.leaves.withLock({ $0 }) {
                let node = leaf.node
                let stamp = StressSubscription.version(of: .leafStamp, in: node.context, expect: node.expect)
                let code = StressSubscription.version(of: .leafCode, in: node.context, expect: node.expect)
                if stamp != leaf.stampCommits.count || code != leaf.codeCommits.count {
                    run.violation(
                        "'\(node.expect.label)' holds versions (\(stamp), \(code)) after "
                            + "(\(leaf.stampCommits.count), \(leaf.codeCommits.count)) updates committed"
                    )
                }
            }
        }
    }

    /// Shuts the pooled scopes, the branches and the root down, and checks that every object built for
    /// a scope was shut down exactly once; returns the tree's contexts, to check that they are released.
    static func shutDownAll(_ world: StressWorld, ledgers: [StressLedger]) async -> [StressWeakContext] {
        let run = world.run
        var ledgers = ledgers
        for scope in world.scopes.withLock({ $0 }) {
            scope.ledger.shutdownStarted.store(true, ordering: .sequentiallyConsistent)
            let built = StressShutdowns.builds(of: scope.ledger)
            guard await shutDown(scope.node.context, label: scope.node.expect.label, run: run) else { continue }
            if let problem = StressShutdowns.check(scope, builtBefore: built) { run.violation(problem) }
            ledgers.append(scope.ledger)
        }
        for ledger in ledgers {
            let scoped = StressShutdowns.builds(of: ledger)
            let shutdowns = (
                ledger.scopedShutdowns.load(ordering: .sequentiallyConsistent),
                ledger.transientShutdowns.load(ordering: .sequentiallyConsistent),
                ledger.singletonShutdowns.load(ordering: .sequentiallyConsistent)
            )
            if scoped != shutdowns || scoped.0 > 1 || scoped.2 > 1 {
                run.violation(
                    "\(ledger.label) built (scoped, transient, singleton) \(scoped) and shut down \(shutdowns)"
                )
            }
        }
        // End a scope's children before the scope: the branches (which own the scoped objects resolved
        // below them outside any scope), then the root (which owns its singleton).
        for branch in world.branches {
            guard await shutDown(branch.middle.context, label: branch.name, run: run) else { continue }
            let built = branch.ledger.scopedBuilds.load(ordering: .sequentiallyConsistent)
            let shut = branch.ledger.scopedShutdowns.load(ordering: .sequentiallyConsistent)
            if built > 1 || built != shut {
                run.violation("\(branch.name) built \(built) scoped objects, shut \(shut) down")
            }
        }
        if await shutDown(world.root.context, label: "the root", run: run) {
            let built = world.rootLedger.singletonBuilds.load(ordering: .sequentiallyConsistent)
            let shut = world.rootLedger.singletonShutdowns.load(ordering: .sequentiallyConsistent)
            if built > 1 || built != shut { run.violation("the root built \(built) singletons, shut \(shut) down") }
        }
        if world.asyncLedger.singletonBuilds.load(ordering: .sequentiallyConsistent) > 1 {
            run.violation("the root's async singleton was built more than once")
        }
        var contexts = [StressWeakContext(context: world.root.context, label: "root")]
        for branch in world.branches {
            contexts.append(StressWeakContext(context: branch.middle.context, label: branch.name))
            contexts.append(StressWeakContext(context: branch.inner.context, label: "\(branch.name) inner"))
            for leaf in branch.leaves.withLock({ $0 }) {
                contexts.append(StressWeakContext(context: leaf.node.context, label: leaf.node.expect.label))
            }
            for member in branch.members.withLock({ $0 }) { contexts.append(member.weak) }
        }
        for scope in world.scopes.withLock({ $0 }) {
            contexts.append(StressWeakContext(context: scope.node.context, label: scope.node.expect.label))
        }
        return contexts
    }

    /// Shuts `context` down, waiting for at most a minute; false (with a violation) when it threw or hung.
    static func shutDown(_ context: Context, label: String, run: StressRun) async -> Bool {
        let outcome = Locked<String??>.make(nil)
        Task(executorPreference: run.executor) {
            do {
                try await context.shutdown()
                outcome.withLock { $0 = .some(nil) }
            } catch {
                outcome.withLock { $0 = .some("shutting '\(label)' down threw \(error)") }
            }
        }
        guard await waitUntil(upTo: .seconds(60), { outcome.withLock { $0 != nil } }) else {
            run.violation("shutting '\(label)' down did not return within 60 s")
            return false
        }
        if let problem = outcome.withLock({ $0 ?? nil }) {
            run.violation(problem)
            return false
        }
        return true
    }
}

// MARK: - Tasks

/// A task's share of the run: the synchronous operations that never block, and the async ones
/// (`withScope`, `changes(of:)`, `prepare`, shutdowns awaited, reads through `async let`).
final class StressTaskWorker {
    let worker: StressWorker
    let world: StressWorld
    let run: StressRun

    init(index: Int, world: StressWorld, status: StressStatus) {
        self.worker = StressWorker(index: index, world: world, status: status, mayBlock: false)
        self.world = world
        self.run = world.run
    }

    func work() async -> StressWorkerResult {
        while run.isRunning {
            let operation: StressOperation? =
                switch worker.rng.below(10) {
                case 0, 1: .withScope
                case 2: .stream
                case 3: .shutdown
                case 4: .asyncPrepare
                case 5: .read
                default: nil
                }
            guard let operation else {
                for _ in 0..<8 { worker.step() }
                await Task.yield()
                continue
            }
            worker.status.set(operation)
            worker.result.counts[operation] += 1
            switch operation {
            case .withScope: await withScope()
            case .stream: await stream()
            case .shutdown: await shutdown()
            case .asyncPrepare: await prepare()
            default: await asyncRead()
            }
            await Task.yield()
        }
        return worker.work()  // the deadline passed: hands over what it kept
    }

    /// A scope for the length of a body that resolves from it, also from a child task, then checks that
    /// what it built was shut down when the body returned.
    func withScope() async {
        let parent = worker.node()
        let id = world.nextID()
        let ledger = StressLedger(label: "withScope \(id)")
        let registersSingleton = worker.rng.chance(40)
        let expect = parent.expect.derived(
            id: id,
            label: "withScope \(id)",
            kind: .scope,
            scopedLedger: ledger,
            inScope: true,
            singletonLedger: registersSingleton ? ledger : nil
        )
        let run = run
        let form = worker.rng.below(5)
        do {
            let problems = try await parent.context.withScope(name: "withScope \(id)") { values in
                values.stressLedger = ledger
                if registersSingleton {
                    values.provide(StressSingleton.self, lifetime: .singleton) { _ in
                        StressSingleton(record: run.record(ledger, run.singletons))
                    }
                }
            } body: { scope -> [String] in
                var problems: [String] = []
                let first = try scope.require(StressScoped.self)
                async let fromChildTask = scope.child(name: "step").require(StressScoped.self)
                let second = try await fromChildTask
                if first !== second || first.record.ledger !== ledger {
                    problems.append("withScope \(id) resolved two scoped objects, or another scope's")
                }
                let transient = try scope.require(StressTransient.self)
                if transient.record.ledger !== ledger {
                    problems.append("withScope \(id)'s transient counts elsewhere")
                }
                do throws(ContextError) {
                    let singleton = try scope.require(StressSingleton.self)
                    if singleton.record.ledger !== expect.singletonLedger {
                        problems.append("withScope \(id) resolved \(singleton.record.ledger.label)'s singleton")
                    }
                } catch {
                    // Registered by an enclosing scope that ended before it was built: it builds nothing more.
                    if error.code != .scopeEnded
                        || !expect.singletonLedger.shutdownStarted.load(ordering: .sequentiallyConsistent)
                    {
                        problems.append("withScope \(id)'s singleton: \(error)")
                    }
                }
                let node = StressNode(context: scope, expect: expect)
                for key in StressKey.allCases {
                    if let problem = worker.order.check(
                        StressReads.read(key, from: node, form: form),
                        key,
                        at: expect,
                        form: StressReads.formName(form)
                    ) {
                        problems.append(problem)
                    }
                }
                await Task.yield()
                return problems
            }
            for problem in problems { worker.violation(problem) }
            let built = StressShutdowns.builds(of: ledger)
            let shut = (
                ledger.scopedShutdowns.load(ordering: .sequentiallyConsistent),
                ledger.transientShutdowns.load(ordering: .sequentiallyConsistent),
                ledger.singletonShutdowns.load(ordering: .sequentiallyConsistent)
            )
            if built.0 != 1 || built != shut || built.2 > 1 {
                worker.violation("withScope \(id) built (scoped, transient, singleton) \(built) and shut down \(shut)")
            }
        } catch {
            worker.violation("withScope \(id) below '\(parent.expect.label)' threw \(error)")
        }
    }

    /// Consumes a context's changes for a few milliseconds: its own branch's stamps, in order.
    func stream() async {
        let node = worker.node()
        let expect = node.expect
        let changes = node.context.changes(of: \.stressBranchStamp)
        let consumer = Task(executorPreference: run.executor) { () -> [StressReading] in
            var readings: [StressReading] = []
            for await stamp in changes {
                readings.append(expect.reading(stamp: stamp, .branchStamp))
                if readings.count >= 4 { break }
            }
            return readings
        }
        try? await Task.sleep(for: .milliseconds(1 + worker.rng.below(8)))
        consumer.cancel()
        for reading in await consumer.value {
            worker.check(reading, .branchStamp, at: node, form: "changes(of:)")
        }
    }

    /// Shuts a pooled scope down, awaited here.
    func shutdown() async {
        let slot = worker.rng.below(StressWorld.scopeLimit)
        guard let scope = world.scopes.withLock({ slot < $0.count ? $0.remove(at: slot) : nil }) else { return }
        scope.ledger.shutdownStarted.store(true, ordering: .sequentiallyConsistent)
        let built = StressShutdowns.builds(of: scope.ledger)
        do {
            try await scope.node.context.shutdown()
            if let problem = StressShutdowns.check(scope, builtBefore: built) { worker.violation(problem) }
        } catch {
            worker.violation("shutting '\(scope.node.expect.label)' down threw \(error)")
        }
        worker.result.scopeLedgers.append(scope.ledger)
    }

    /// Prepares the root's async singleton: built once, whoever asks.
    func prepare() async {
        let ledger = world.asyncLedger
        do {
            let object = try await worker.node().context.prepare(StressAsyncSingleton.self)
            world.asyncPrepared.store(true, ordering: .sequentiallyConsistent)
            if !ledger.agrees(object.record.serial, on: ledger.singletonSerial) {
                worker.violation("prepare gave a second async singleton")
            }
            let builds = ledger.singletonBuilds.load(ordering: .sequentiallyConsistent)
            if builds > 1 { worker.violation("the async singleton was built \(builds) times") }
        } catch {
            worker.violation("prepare(StressAsyncSingleton.self) threw \(error)")
        }
    }

    /// Reads through `Context.current` in a child task, which inherits it.
    func asyncRead() async {
        let node = worker.node()
        let (stamp, pair) = await node.context.run {
            async let stamp = Context.current[\.stressBranchStamp]
            async let pair = Context.current[\.stressBranchPair]
            return await (stamp, pair)
        }
        worker.check(node.expect.reading(stamp: stamp, .branchStamp), .branchStamp, at: node, form: "async let")
        worker.check(node.expect.reading(pair: pair), .branchPair, at: node, form: "async let")
    }
}
