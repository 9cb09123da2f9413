// A stress worker: one thread's random mix of reads, updates, derivations, scopes, resolves, shutdowns,
// observations and members on the shared tree, each checked as soon as it returns.

import Synchronization

@testable import Contextual

// MARK: - Operations

/// What the workers do, counted for the run's summary.
enum StressOperation: Int, CaseIterable, Sendable {
    case read, injectedRead, typeRead, preferenceRead
    case rootUpdate, branchUpdate, objectUpdate, leafUpdate
    case child, leafReplacement
    case scope, withScope
    case scopedResolve, singletonResolve, transientResolve, asyncPrepare
    case shutdown
    case subscription, tracking, stream, cancellation
    case memberJoin, memberLeave
}

/// Operation counts, summed over the workers.
struct StressCounts: Sendable {
    var counts = [Int](repeating: 0, count: StressOperation.allCases.count)

    subscript(_ operation: StressOperation) -> Int {
        get { counts[operation.rawValue] }
        set { counts[operation.rawValue] = newValue }
    }

    mutating func add(_ other: StressCounts) {
        for index in counts.indices { counts[index] += other.counts[index] }
    }

    var total: Int { counts.reduce(0, +) }

    func sum(_ operations: StressOperation...) -> Int {
        operations.reduce(0) { $0 + self[$1] }
    }

    /// The summary line's groups.
    var summary: String {
        let groups: [(String, Int)] = [
            ("reads", sum(.read, .injectedRead, .typeRead, .preferenceRead)),
            ("updates", sum(.rootUpdate, .branchUpdate, .objectUpdate, .leafUpdate)),
            ("children", sum(.child, .leafReplacement)),
            ("scopes", sum(.scope, .withScope)),
            ("resolves", sum(.scopedResolve, .singletonResolve, .transientResolve, .asyncPrepare)),
            ("shutdowns", self[.shutdown]),
            ("observations", sum(.subscription, .tracking, .stream)),
            ("cancellations", self[.cancellation]),
            ("members", sum(.memberJoin, .memberLeave)),
        ]
        return groups.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
}

/// What a worker is doing, for the report of a run that did not end.
final class StressStatus: Sendable {
    private let operation = Atomic<Int>(-1)

    func set(_ current: StressOperation?) {
        operation.store(current?.rawValue ?? -1, ordering: .relaxed)
    }

    var current: String {
        let raw = operation.load(ordering: .relaxed)
        return raw < 0 ? "nothing" : "\(StressOperation(rawValue: raw)!)"
    }
}

/// What a worker hands over when it stops, for the checks at the end.
struct StressWorkerResult: Sendable {
    var counts = StressCounts()
    /// Its subscriptions still alive, and their tokens (kept until checked).
    var live: [(StressSubscription, ObservationToken)] = []
    var ended: [StressSubscription] = []
    var scopeLedgers: [StressLedger] = []
    var released: [StressWeakContext] = []
}

// MARK: - Services

/// A service a worker keeps, made in a context: `@Injected` properties of a class, read again and again.
final class StressService {
    @Injected(\.stressRootStamp) var rootStamp
    @Injected(\.stressRootCode) var rootCode
    @Injected(\.stressBranchStamp) var branchStamp
    @Injected(\.stressBranchCode) var branchCode
    @Injected(\.stressBranchPair) var branchPair
    @Injected(\.stressBranchBox) var branchBox
    @Injected(\.stressBranchLabel) var branchLabel
    @Injected(StressBranchObject.self) var branchObject: StressBranchObject?
    @Injected(\.stressLeafStamp) var leafStamp
    @Injected(\.stressLeafCode) var leafCode
    /// The form a `Sendable` class uses: a constant, called.
    let pair = Injected(\.stressBranchPair)
}

/// The same in a struct.
struct StressStructService {
    @Injected(\.stressBranchCode) var branchCode
    @Injected(\.stressBranchPair) var branchPair
    @Injected(\.stressLeafStamp) var leafStamp
    @Injected(\.stressRootCode) var rootCode
}

// MARK: - Worker

/// One thread's share of the run. Used by that thread only.
final class StressWorker {
    let index: Int
    let world: StressWorld
    let run: StressRun
    let status: StressStatus
    /// Whether it may block its thread to wait for a task (a shutdown): never on the cooperative pool.
    let mayBlock: Bool
    var rng: SplitMix64
    var order = StressOrder()
    var result = StressWorkerResult()
    private var services: [(node: StressNode, service: StressService, plain: StressStructService)] = []
    private var subscriptions: [(StressSubscription, ObservationToken)] = []

    init(index: Int, world: StressWorld, status: StressStatus, mayBlock: Bool) {
        self.index = index
        self.world = world
        self.run = world.run
        self.status = status
        self.mayBlock = mayBlock
        self.rng = SplitMix64(seed: SplitMix64.seed(ofWorker: index, master: world.run.settings.seed))
    }

    /// Runs random operations until the run ends, then hands over what the checks at the end need.
    func work() -> StressWorkerResult {
        while run.isRunning {
            for _ in 0..<16 { step() }
        }
        status.set(nil)
        services = []
        result.live = subscriptions
        subscriptions = []
        return result
    }

    func violation(_ message: String) {
        run.violation("worker \(index): \(message)")
    }

    // MARK: Choosing

    /// One random operation, by weight.
    func step() {
        let roll = rng.below(100)
        let operation: StressOperation =
            switch roll {
            case 0..<18: .read
            case 18..<34: .injectedRead
            case 34..<39: .typeRead
            case 39..<41: .preferenceRead
            case 41..<43: .rootUpdate
            case 43..<49: .branchUpdate
            case 49..<51: .objectUpdate
            case 51..<55: .leafUpdate
            case 55..<60: .child
            case 60..<62: .leafReplacement
            case 62..<66: .scope
            case 66..<73: .scopedResolve
            case 73..<77: .singletonResolve
            case 77..<80: .transientResolve
            case 80..<83: .shutdown
            case 83..<87: .subscription
            case 87..<88: .tracking
            case 88..<92: .cancellation
            case 92..<96: .memberJoin
            default: .memberLeave
            }
        status.set(operation)
        result.counts[operation] += 1
        switch operation {
        case .read: read()
        case .injectedRead: injectedRead()
        case .typeRead: typeRead()
        case .preferenceRead: preferenceRead()
        case .rootUpdate: rootUpdate()
        case .branchUpdate: branchUpdate()
        case .objectUpdate: objectUpdate()
        case .leafUpdate: leafUpdate()
        case .child: child()
        case .leafReplacement: leafReplacement()
        case .scope: makeScope()
        case .scopedResolve: scopedResolve()
        case .singletonResolve: singletonResolve()
        case .transientResolve: transientResolve()
        case .shutdown: shutdownScope()
        case .subscription: subscribe()
        case .tracking: track()
        case .cancellation: cancelSubscription()
        case .memberJoin: joinMember()
        case .memberLeave: leaveMember()
        case .withScope, .stream, .asyncPrepare: break
        }
    }

    func branch() -> StressBranch {
        rng.pick(world.branches)
    }

    func leaf(of branch: StressBranch) -> StressLeaf {
        let slot = rng.below(StressWorld.leavesPerBranch)
        return branch.leaves.withLock { $0[slot] }
    }

    /// A context of the tree, leaves and scopes most often.
    func node() -> StressNode {
        let branch = branch()
        switch rng.below(20) {
        case 0: return world.root
        case 1, 2: return branch.middle
        case 3, 4: return branch.inner
        case 5..<8:
            if let scope = pooledScope() { return scope.node }
        case 8, 9:
            let slot = rng.below(StressWorld.memberLimit)
            let member = branch.members.withLock { slot < $0.count ? $0[slot] : nil }
            if let node = member?.node { return node }
        default: break
        }
        return leaf(of: branch).node
    }

    func pooledScope() -> StressScope? {
        let slot = rng.below(StressWorld.scopeLimit)
        return world.scopes.withLock { slot < $0.count ? $0[slot] : nil }
    }

    func check(_ reading: StressReading, _ key: StressKey, at node: StressNode, form: String) {
        if let problem = order.check(reading, key, at: node.expect, form: form) { violation(problem) }
    }

    // MARK: Reads

    /// Reads a few keys of a context, each through one of the read forms.
    func read() {
        let node = node()
        for _ in 0..<(1 + rng.below(4)) {
            let key = rng.pick(StressKey.allCases)
            let form = rng.below(5)
            let reading = StressReads.read(key, from: node, form: form)
            check(reading, key, at: node, form: StressReads.formName(form))
        }
    }

    /// Reads every property of a service kept for a context (made on first use), a few times over.
    func injectedRead() {
        if services.count < 6 || rng.chance(5) {
            let node = node()
            let (service, plain) = node.context.run { (StressService(), StressStructService()) }
            if service.$branchStamp.context !== node.context {
                violation("an @Injected property made in '\(node.expect.label)' is bound to another context")
            }
            if services.count >= 6 { services.remove(at: rng.below(services.count)) }
            services.append((node, service, plain))
        }
        let (node, service, plain) = services[rng.below(services.count)]
        let expect = node.expect
        for _ in 0..<(1 + rng.below(4)) {
            check(expect.reading(stamp: service.rootStamp, .rootStamp), .rootStamp, at: node, form: "@Injected")
            check(expect.reading(code: service.rootCode, .rootCode), .rootCode, at: node, form: "@Injected")
            check(expect.reading(stamp: service.branchStamp, .branchStamp), .branchStamp, at: node, form: "@Injected")
            check(expect.reading(code: service.branchCode, .branchCode), .branchCode, at: node, form: "@Injected")
            check(expect.reading(pair: service.branchPair), .branchPair, at: node, form: "@Injected")
            check(expect.reading(box: service.branchBox), .branchBox, at: node, form: "@Injected")
            check(expect.reading(label: service.branchLabel), .branchLabel, at: node, form: "@Injected")
            check(expect.reading(object: service.branchObject), .branchObject, at: node, form: "@Injected by type")
            check(expect.reading(stamp: service.leafStamp, .leafStamp), .leafStamp, at: node, form: "@Injected")
            check(expect.reading(code: service.leafCode, .leafCode), .leafCode, at: node, form: "@Injected")
            check(expect.reading(pair: service.pair()), .branchPair, at: node, form: "Injected let")
            check(expect.reading(code: plain.branchCode, .branchCode), .branchCode, at: node, form: "@Injected struct")
            check(expect.reading(pair: plain.branchPair), .branchPair, at: node, form: "@Injected struct")
            check(expect.reading(stamp: plain.leafStamp, .leafStamp), .leafStamp, at: node, form: "@Injected struct")
            check(expect.reading(code: plain.rootCode, .rootCode), .rootCode, at: node, form: "@Injected struct")
        }
    }

    /// Resolves the branch's object by type, in each form.
    func typeRead() {
        let node = node()
        let form = rng.below(4)
        let object: StressBranchObject?
        switch form {
        case 0: object = node.context.resolve(StressBranchObject.self)
        case 1:
            do {
                object = try node.context.require(StressBranchObject.self)
            } catch {
                if node.expect.branch != nil || error.code != .missingObject {
                    violation("require(StressBranchObject.self) in '\(node.expect.label)' threw \(error)")
                }
                object = nil
            }
        case 2: object = (Injected(StressBranchObject.self, from: node.context) as Injected<StressBranchObject?>)()
        default: object = node.context.run { Context.current.resolve(StressBranchObject.self) }
        }
        check(node.expect.reading(object: object), .branchObject, at: node, form: "resolve form \(form)")
    }

    /// Reads a branch's members and the preferences reduced over the branch and over the whole tree.
    func preferenceRead() {
        let branch = branch()
        let own = branch.middle.context.preference(\.stressRoutes)
        if own.first != branch.name || !own.allSatisfy({ $0 == branch.name || $0.hasPrefix(branch.name + "/") }) {
            violation("\(branch.name)'s routes are \(own.prefix(8)): another branch's, or out of order")
        }
        for member in branch.middle.context.members {
            let name = member.name ?? ""
            let owner = member.containerValues.stressOwner
            if !name.hasPrefix(branch.name + "/") || (owner != "" && owner != branch.name) {
                violation("\(branch.name) lists member '\(name)' whose owner is '\(owner)'")
            }
        }
        let all = world.root.context.preference(\.stressRoutes)
        let branchesInOrder = all.dropFirst().map { route in
            Int(route.dropFirst().prefix { $0.isNumber }) ?? -1
        }
        if all.first != "root" || branchesInOrder.contains(-1) || branchesInOrder != branchesInOrder.sorted() {
            violation("the root's routes are not the root's then each branch's in order: \(all.prefix(12))")
        }
        let hosts = world.root.context.members.map { $0.name ?? "" }
        if hosts != world.branches.map(\.name) {
            violation("the root lists members \(hosts), expected its branches")
        }
    }

    // MARK: Updates

    func rootUpdate() {
        let mode = rng.below(3)
        var stamp = 0
        var code = 0
        var problems: [String] = []
        let expect = world.root.expect
        world.root.context.update { values in
            if mode != 2 {
                let reading = expect.reading(stamp: values.stressRootStamp, .rootStamp)
                if let problem = reading.problem { problems.append(problem) }
                stamp = reading.version + 1
                values.stressRootStamp = StressStamp(owner: "root", version: stamp)
            }
            if mode != 1 {
                let reading = expect.reading(code: values.stressRootCode, .rootCode)
                if let problem = reading.problem { problems.append(problem) }
                code = reading.version + 1
                values.stressRootCode = StressCode.make(owner: StressCode.rootOwner, version: code)
            }
        }
        for problem in problems { violation("the root's update read: \(problem)") }
        if mode != 2 { committed(stamp, .rootStamp, at: world.root, counter: world.rootCommits) }
        if mode != 1 { committed(code, .rootCode, at: world.root, counter: world.rootCommits) }
    }

    /// Updates a branch's values: all of them, or one (the update that changes one value of several).
    func branchUpdate() {
        let branch = branch()
        let node = branch.middle
        let keys = rng.chance(40) ? StressKey.branchValues : [rng.pick(StressKey.branchValues)]
        var versions: [Int] = []
        var problems: [String] = []
        let name = branch.name
        let owner = StressCode.branchOwner(branch.index)
        let live = run.boxes
        node.context.update { values in
            versions = []
            for key in keys {
                let reading = StressReads.current(key, in: values, expect: node.expect)
                if let problem = reading.problem { problems.append(problem) }
                let next = reading.version + 1
                versions.append(next)
                switch key {
                case .branchStamp: values.stressBranchStamp = StressStamp(owner: name, version: next)
                case .branchCode: values.stressBranchCode = StressCode.make(owner: owner, version: next)
                case .branchPair:
                    values.stressBranchPair = StressPair(code: StressCode.make(owner: owner, version: next))
                case .branchBox: values.stressBranchBox = StressBox(owner: name, version: next, live: live)
                default: values.stressBranchLabel = "\(name):\(next)"
                }
            }
        }
        for problem in problems { violation("\(name)'s update read: \(problem)") }
        for (key, version) in zip(keys, versions) { committed(version, key, at: node, counter: branch.commits) }
    }

    /// Replaces a branch's object with the next version.
    func objectUpdate() {
        let branch = branch()
        var version = 0
        let index = branch.index
        let live = run.objects
        branch.middle.context.update { values in
            version = (values.object(StressBranchObject.self)?.version ?? -1) + 1
            values.provide(StressBranchObject(branch: index, version: version, live: live))
        }
        committed(version, .branchObject, at: branch.middle, counter: branch.commits)
    }

    func leafUpdate() {
        let leaf = leaf(of: branch())
        let node = leaf.node
        let mode = rng.below(3)
        var stamp = 0
        var code = 0
        var problems: [String] = []
        let id = node.expect.leaf!
        node.context.update { values in
            if mode != 2 {
                let reading = node.expect.reading(stamp: values.stressLeafStamp, .leafStamp)
                if let problem = reading.problem { problems.append(problem) }
                stamp = reading.version + 1
                values.stressLeafStamp = StressStamp(owner: "leaf \(id)", version: stamp)
            }
            if mode != 1 {
                let reading = node.expect.reading(code: values.stressLeafCode, .leafCode)
                if let problem = reading.problem { problems.append(problem) }
                code = reading.version + 1
                values.stressLeafCode = StressCode.make(owner: StressCode.leafOwner(id), version: code)
            }
        }
        for problem in problems { violation("leaf \(id)'s update read: \(problem)") }
        if mode != 2 {
            leaf.stampCommits.increment()
            order.committed(stamp, .leafStamp, at: node.expect)
        }
        if mode != 1 {
            leaf.codeCommits.increment()
            order.committed(code, .leafCode, at: node.expect)
        }
    }

    func committed(_ version: Int, _ key: StressKey, at node: StressNode, counter: [StressCounter]) {
        counter[key.rawValue].increment()
        order.committed(version, key, at: node.expect)
    }

    // MARK: Children

    /// A short chain of children below a context, read, then released.
    func child() {
        var node = node()
        for depth in 0..<(1 + rng.below(3)) {
            let id = world.nextID()
            let context: Context
            switch rng.below(4) {
            case 0: context = node.context.child(name: "child \(id)")
            case 1: context = node.context.child(\.stressNote, "child \(id)", name: "child \(id)")
            case 2: context = node.context.child(name: "child \(id)") { $0.stressNote = "depth \(depth)" }
            default: context = node.context.child(providing: StressFailure("provided by child \(id)"))
            }
            node = StressNode(context: context, expect: node.expect.derived(id: id, label: "child \(id)", kind: .child))
            result.released.append(StressWeakContext(context: context, label: "child \(id)"))
        }
        for _ in 0..<(1 + rng.below(3)) {
            let key = rng.pick(StressKey.allCases)
            let form = rng.below(5)
            check(StressReads.read(key, from: node, form: form), key, at: node, form: StressReads.formName(form))
        }
        compactReleased()
    }

    /// Replaces a leaf of a branch with a new one; the old one goes when its last holder lets it go.
    func leafReplacement() {
        let branch = branch()
        let slot = rng.below(StressWorld.leavesPerBranch)
        let parent = rng.chance(50) ? branch.middle : branch.inner
        let leaf = StressWorld.makeLeaf(id: world.nextID(), below: parent, run: run)
        let old = branch.leaves.withLock { leaves in
            defer { leaves[slot] = leaf }
            return leaves[slot]
        }
        result.released.append(StressWeakContext(context: old.node.context, label: old.node.expect.label))
    }

    /// Forgets the contexts already released, so that the list stays short.
    func compactReleased() {
        if result.released.count > 4_096 { result.released.removeAll { $0.context == nil } }
    }

    // MARK: Scopes

    /// A scope below a random context, in the shared pool; registered as a member when made below a branch's
    /// middle context.
    func makeScope() {
        if world.scopes.withLock({ $0.count }) >= StressWorld.scopeLimit { return mayBlock ? shutdownScope() : () }
        let parent = node()
        let id = world.nextID()
        let ledger = StressLedger(label: "scope \(id)")
        let registersSingleton = rng.chance(40)
        let isHost = parent.expect.kind == .middle
        let owner = parent.expect.branch.map { "b\($0)" } ?? "root"
        let run = run
        let context = parent.context.scope(name: "\(owner)/scope \(id)") { values in
            values.stressLedger = ledger
            values.containerValues.stressOwner = owner
            if registersSingleton {
                values.provide(StressSingleton.self, lifetime: .singleton) { _ in
                    StressSingleton(record: run.record(ledger, run.singletons))
                }
            }
        }
        let expect = parent.expect.derived(
            id: id,
            label: "scope \(id)",
            kind: .scope,
            scopedLedger: ledger,
            inScope: true,
            singletonLedger: registersSingleton ? ledger : nil
        )
        var host: Context?
        var route: String?
        if isHost && rng.chance(60) {
            do {
                try parent.context.addMember(context, ownership: rng.chance(50) ? .weak : .owned)
                host = parent.context
                route = "\(owner)/scope \(id)"
                context.contribute(\.stressRoutes, route!)
            } catch {
                violation("addMember of 'scope \(id)' to '\(parent.expect.label)' threw \(error)")
            }
        }
        let scope = StressScope(
            node: StressNode(context: context, expect: expect),
            ledger: ledger,
            host: host,
            route: route
        )
        world.scopes.withLock { $0.append(scope) }
        result.released.append(StressWeakContext(context: context, label: "scope \(id)"))
    }

    /// A pooled scope, or a child of one, or (now and then) a context outside any scope.
    func scopeTarget() -> StressNode {
        guard rng.chance(80), let scope = pooledScope() else { return node() }
        guard rng.chance(40) else { return scope.node }
        let id = world.nextID()
        let context = scope.node.context.child(name: "child \(id)")
        return StressNode(
            context: context,
            expect: scope.node.expect.derived(id: id, label: "child \(id)", kind: .child)
        )
    }

    func scopedResolve() {
        let node = scopeTarget()
        let expect = node.expect
        do {
            // The optional form only where a scope is expected: outside any, it would stop the process.
            let object: StressScoped? =
                if expect.scopedLedger == nil || rng.chance(80) {
                    try node.context.require(StressScoped.self)
                } else {
                    (Injected(StressScoped.self, from: node.context) as Injected<StressScoped?>)()
                }
            guard let object else {
                if expect.scopedLedger?.shutdownStarted.load(ordering: .sequentiallyConsistent) != true {
                    violation("Injected<StressScoped?> in '\(expect.label)' read nil before its scope's shutdown")
                }
                return
            }
            guard let ledger = expect.scopedLedger else {
                return violation("'\(expect.label)' resolved a scoped object, outside any scope")
            }
            if object.record.ledger !== ledger {
                violation(
                    "'\(expect.label)' resolved \(object.record.ledger.label)'s scoped object, not \(ledger.label)'s"
                )
            }
            if !ledger.agrees(object.record.serial, on: ledger.scopedSerial) {
                violation("'\(expect.label)' resolved a second scoped object for \(ledger.label)")
            }
            let builds = ledger.scopedBuilds.load(ordering: .sequentiallyConsistent)
            if builds > 1 { violation("\(ledger.label)'s scoped object was built \(builds) times") }
        } catch {
            expectEnded(error, of: expect.scopedLedger, in: expect, resolving: "StressScoped")
        }
    }

    func singletonResolve() {
        if rng.chance(10) { return asyncSingletonResolve() }
        let node = rng.chance(50) ? node() : scopeTarget()
        let ledger = node.expect.singletonLedger
        do {
            let object = try node.context.require(StressSingleton.self)
            if object.record.ledger !== ledger {
                violation(
                    "'\(node.expect.label)' resolved \(object.record.ledger.label)'s singleton, not \(ledger.label)'s"
                )
            }
            if !ledger.agrees(object.record.serial, on: ledger.singletonSerial) {
                violation("'\(node.expect.label)' resolved a second singleton of \(ledger.label)")
            }
            let builds = ledger.singletonBuilds.load(ordering: .sequentiallyConsistent)
            if builds > 1 { violation("\(ledger.label)'s singleton was built \(builds) times") }
        } catch {
            expectEnded(error, of: ledger, in: node.expect, resolving: "StressSingleton")
        }
    }

    /// The root's async singleton, resolved synchronously: it fails with `.asyncProvider` until a
    /// `prepare` of it returned, and gives the one object after.
    func asyncSingletonResolve() {
        let prepared = world.asyncPrepared.load(ordering: .sequentiallyConsistent)
        do {
            let object = try node().context.require(StressAsyncSingleton.self)
            if !world.asyncLedger.agrees(object.record.serial, on: world.asyncLedger.singletonSerial) {
                violation("a second async singleton was resolved")
            }
        } catch {
            if prepared || error.code != .asyncProvider {
                violation("require(StressAsyncSingleton.self) threw \(error) (prepared: \(prepared))")
            }
        }
    }

    func transientResolve() {
        guard let scope = pooledScope() else { return }
        let node =
            rng.chance(50)
            ? scope.node
            : StressNode(
                context: scope.node.context.child(name: "transient asker"),
                expect: scope.node.expect.derived(id: world.nextID(), label: "transient asker", kind: .child)
            )
        do {
            let object = try node.context.require(StressTransient.self)
            if object.record.ledger !== scope.ledger {
                violation("a transient resolved in '\(node.expect.label)' counts in \(object.record.ledger.label)")
            }
        } catch {
            expectEnded(error, of: scope.ledger, in: node.expect, resolving: "StressTransient")
        }
    }

    /// A resolve that threw is right only when the scope it builds for is being shut down.
    func expectEnded(_ error: ContextError, of ledger: StressLedger?, in expect: StressExpectation, resolving: String) {
        if ledger == nil && error.code == .noScope { return }
        if error.code == .scopeEnded, ledger?.shutdownStarted.load(ordering: .sequentiallyConsistent) == true {
            return
        }
        violation(
            "require(\(resolving).self) in '\(expect.label)' threw \(error.code) before \(ledger?.label ?? "?") "
                + "was shut down: \(error.message)"
        )
    }

    /// Shuts a pooled scope down (from this thread, waiting for at most a minute) and checks what it did.
    func shutdownScope() {
        guard mayBlock else { return }
        let slot = rng.below(StressWorld.scopeLimit)
        guard let scope = world.scopes.withLock({ slot < $0.count ? $0.remove(at: slot) : nil }) else { return }
        let outcome = StressShutdowns.shutDown(scope, on: run.executor)
        if let problem = outcome { violation(problem) }
        result.scopeLedgers.append(scope.ledger)
    }

    // MARK: Observation

    func subscribe() {
        if subscriptions.count >= 8 { return cancelSubscription() }
        let node = node()
        let id = world.nextID()
        let selfCancelAfter = rng.chance(20) ? 1 + rng.below(3) : 0
        let violations = run.violations
        let subscription: StressSubscription
        let token: ObservationToken
        switch rng.below(7) {
        case 0, 1, 2:
            let key = rng.pick([
                StressKey.rootStamp, .branchStamp, .branchCode, .branchPair, .branchBox, .leafStamp, .leafCode,
            ])
            subscription = StressSubscription(
                label: "observe(\(key)) #\(id) of '\(node.expect.label)'",
                kind: .value(key),
                node: node,
                selfCancelAfter: selfCancelAfter,
                strict: true,
                violations: violations
            )
            token = StressObservers.observe(key, of: node, subscription)
        case 3:
            subscription = StressSubscription(
                label: "observe(StressBranchObject.self) #\(id) of '\(node.expect.label)'",
                kind: .object,
                node: node,
                selfCancelAfter: selfCancelAfter,
                strict: true,
                violations: violations
            )
            let expect = node.expect
            token = node.context.observe(StressBranchObject.self) { [subscription] object in
                subscription.deliver(expect.reading(object: object))
            }
        case 4:
            let branch = branch()
            let host = branch.middle
            subscription = StressSubscription(
                label: "observePreference(routes) #\(id) of \(branch.name)",
                kind: .routes,
                node: host,
                selfCancelAfter: selfCancelAfter,
                strict: false,
                violations: violations
            )
            let name = branch.name
            token = host.context.observePreference(\.stressRoutes) { [subscription] routes in
                let wrong = routes.first != name || routes.contains { $0 != name && !$0.hasPrefix(name + "/") }
                subscription.deliver(wrong ? .wrong("routes \(routes.prefix(8))") : .ok(0))
            }
        default:
            subscription = StressSubscription(
                label: "withContinuousTracking #\(id) of '\(node.expect.label)'",
                kind: .tracking,
                node: node,
                selfCancelAfter: selfCancelAfter,
                strict: false,
                violations: violations
            )
            let expect = node.expect
            token = ObservationRegistry.withContinuousTracking { [weak context = node.context] in
                context.map { expect.reading(stamp: $0[\.stressBranchStamp], .branchStamp) } ?? .ok(-1)
            } onChange: { [subscription] reading in
                if reading.version >= 0 { subscription.deliver(reading) }
            }
        }
        subscription.token.withLock { $0.token = token }
        if let version = subscription.currentVersion() {
            subscription.startVersion.store(version, ordering: .sequentiallyConsistent)
        }
        subscriptions.append((subscription, token))
    }

    /// A one-shot tracking of a context's reads: its handler runs at most once.
    func track() {
        let node = node()
        let fired = StressCounter()
        let violations = run.violations
        let label = node.expect.label
        ObservationRegistry.withTracking {
            _ = node.context[\.stressBranchStamp]
            _ = node.context[\.stressRootCode]
        } onChange: {
            let count = fired.increment()
            if count > 1 { violations.record("withTracking of '\(label)' called its handler \(count) times") }
        }
    }

    func cancelSubscription() {
        guard !subscriptions.isEmpty else { return }
        let (subscription, token) = subscriptions.remove(at: rng.below(subscriptions.count))
        if rng.chance(75) {
            token.cancel()
            if !token.isCancelled { violation("\(subscription.label): isCancelled is false after cancel()") }
            subscription.cancelled()
        }
        // Else the token is released here, which cancels it (a handler running may hold it a little longer).
        result.ended.append(subscription)
    }

    // MARK: Members

    func joinMember() {
        let branch = branch()
        if branch.members.withLock({ $0.count }) >= StressWorld.memberLimit { return leaveMember() }
        let id = world.nextID()
        let name = "\(branch.name)/member \(id)"
        let ownership: MemberOwnership = rng.chance(50) ? .owned : .weak
        let host = branch.middle.context
        let context: Context
        switch rng.below(3) {
        case 0:
            context = host.member(name: name, ownership: ownership) { values in
                values.preferences.stressRoutes = [name]
                values.containerValues.stressOwner = branch.name
            }
        case 1:
            context = host.member(name: name, ownership: ownership)
            context.contribute(\.stressRoutes, name)
            context.setContainerValue(\.stressOwner, branch.name)
        default:
            context = host.child(name: name)
            do {
                try host.addMember(context, ownership: ownership)
            } catch {
                violation("addMember of '\(name)' threw \(error)")
            }
            context.setPreference(\.stressRoutes, [name])
            context.setContainerValue(\.stressOwner, branch.name)
        }
        if !context.isMember { violation("'\(name)' is not a member right after it joined") }
        let expect = branch.middle.expect.derived(id: id, label: name, kind: .member)
        branch.members.withLock {
            $0.append(StressMember(context: context, expect: expect, name: name, ownership: ownership))
        }
        result.released.append(StressWeakContext(context: context, label: name))
    }

    func leaveMember() {
        let branch = branch()
        let slot = rng.below(StressWorld.memberLimit)
        guard let member = branch.members.withLock({ slot < $0.count ? $0.remove(at: slot) : nil }) else { return }
        let host = branch.middle.context
        let mode = mayBlock ? rng.below(3) : rng.below(2)
        if mode == 0 && member.ownership == .weak { return }  // released as this entry goes (when nobody reads it)
        guard let context = member.weak.context else {
            return violation("the owned member '\(member.name)' was released while its host holds it")
        }
        if mode == 2 {
            let outcome = stressBlockingAwait(upTo: .seconds(60), on: run.executor) { () -> String? in
                do {
                    try await context.shutdown()
                    return nil
                } catch {
                    return "shutting member '\(member.name)' down threw \(error)"
                }
            }
            switch outcome {
            case .none: return violation("shutting member '\(member.name)' down did not return within 60 s")
            case .some(.some(let problem)): violation(problem)
            case .some(.none): break
            }
        } else if !host.removeMember(context) {
            violation("removeMember of '\(member.name)' returned false")
        }
        if context.isMember { violation("'\(member.name)' is still a member after it left") }
        if host.members.contains(where: { $0.context === context }) {
            violation("'\(member.name)' is still listed after it left")
        }
        if host.preference(\.stressRoutes).contains(member.name) {
            violation("'\(member.name)''s route is still in \(branch.name)'s preference after it left")
        }
    }
}

// MARK: - Reads

/// The read forms, for every key.
enum StressReads {
    static func formName(_ form: Int) -> String {
        ["subscript", "Context.current", "Injected", "require", "subscript by key type"][form]
    }

    /// Reads `key` in `node` with read form `form` (0..<5), and tells what it gave.
    static func read(_ key: StressKey, from node: StressNode, form: Int) -> StressReading {
        let context = node.context
        let expect = node.expect
        switch key {
        case .rootStamp:
            return expect.reading(stamp: value(\.stressRootStamp, StressRootStampKey.self, context, form), key)
        case .rootCode:
            return expect.reading(code: value(\.stressRootCode, StressRootCodeKey.self, context, form), key)
        case .branchStamp:
            return expect.reading(stamp: value(\.stressBranchStamp, StressBranchStampKey.self, context, form), key)
        case .branchCode:
            return expect.reading(code: value(\.stressBranchCode, StressBranchCodeKey.self, context, form), key)
        case .branchPair:
            return expect.reading(pair: value(\.stressBranchPair, StressBranchPairKey.self, context, form))
        case .branchBox:
            return expect.reading(box: value(\.stressBranchBox, StressBranchBoxKey.self, context, form))
        case .branchLabel:
            return expect.reading(label: value(\.stressBranchLabel, StressBranchLabelKey.self, context, form))
        case .branchObject:
            return expect.reading(object: context.resolve(StressBranchObject.self))
        case .leafStamp:
            return expect.reading(stamp: value(\.stressLeafStamp, StressLeafStampKey.self, context, form), key)
        case .leafCode:
            return expect.reading(code: value(\.stressLeafCode, StressLeafCodeKey.self, context, form), key)
        }
    }

    static func value<Key: ContextKey>(
        _ keyPath: KeyPath<ContextValues, Key.Value> & Sendable,
        _ key: Key.Type,
        _ context: Context,
        _ form: Int
    ) -> Key.Value {
        switch form {
        case 0: context[keyPath]
        case 1: context.run { Context.current[keyPath] }
        case 2: Injected(keyPath, from: context)()
        case 3: (try? context.require(keyPath)) ?? context[keyPath]
        default: context[key]
        }
    }

    /// What an update's closure sees of a branch key.
    static func current(_ key: StressKey, in values: ContextValues, expect: StressExpectation) -> StressReading {
        switch key {
        case .branchStamp: expect.reading(stamp: values.stressBranchStamp, key)
        case .branchCode: expect.reading(code: values.stressBranchCode, key)
        case .branchPair: expect.reading(pair: values.stressBranchPair)
        case .branchBox: expect.reading(box: values.stressBranchBox)
        default: expect.reading(label: values.stressBranchLabel)
        }
    }
}

// MARK: - Observers

enum StressObservers {
    /// `observe(\.key)` of a context, delivering to `subscription`.
    static func observe(_ key: StressKey, of node: StressNode, _ subscription: StressSubscription) -> ObservationToken {
        let context = node.context
        let expect = node.expect
        switch key {
        case .rootStamp:
            return context.observe(\.stressRootStamp) { subscription.deliver(expect.reading(stamp: $0, key)) }
        case .branchStamp:
            return context.observe(\.stressBranchStamp) { subscription.deliver(expect.reading(stamp: $0, key)) }
        case .leafStamp:
            return context.observe(\.stressLeafStamp) { subscription.deliver(expect.reading(stamp: $0, key)) }
        case .branchCode:
            return context.observe(\.stressBranchCode) { subscription.deliver(expect.reading(code: $0, key)) }
        case .leafCode:
            return context.observe(\.stressLeafCode) { subscription.deliver(expect.reading(code: $0, key)) }
        case .branchPair:
            return context.observe(\.stressBranchPair) { subscription.deliver(expect.reading(pair: $0)) }
        case .branchBox:
            return context.observe(\.stressBranchBox) { subscription.deliver(expect.reading(box: $0)) }
        default:
            return context.observe(\.stressRootCode) { subscription.deliver(expect.reading(code: $0, .rootCode)) }
        }
    }
}

// MARK: - Shutdowns

enum StressShutdowns {
    /// Shuts `scope` down from a thread of the run (waiting for at most a minute), then checks that what it
    /// built was shut down, that it builds nothing more, that its values stay readable and that it left
    /// its host. Returns what is wrong.
    static func shutDown(_ scope: StressScope, on executor: StressExecutor) -> String? {
        let ledger = scope.ledger
        ledger.shutdownStarted.store(true, ordering: .sequentiallyConsistent)
        let built = builds(of: ledger)
        let context = scope.node.context
        let outcome = stressBlockingAwait(upTo: .seconds(60), on: executor) { () -> String? in
            do {
                try await context.shutdown()
                return nil
            } catch {
                return "shutting '\(scope.node.expect.label)' down threw \(error)"
            }
        }
        switch outcome {
        case .none: return "shutting '\(scope.node.expect.label)' down did not return within 60 s"
        case .some(.some(let problem)): return problem
        case .some(.none): return check(scope, builtBefore: built)
        }
    }

    /// What had been built for a ledger: scoped, transient, singleton.
    static func builds(of ledger: StressLedger) -> (Int, Int, Int) {
        (
            ledger.scopedBuilds.load(ordering: .sequentiallyConsistent),
            ledger.transientBuilds.load(ordering: .sequentiallyConsistent),
            ledger.singletonBuilds.load(ordering: .sequentiallyConsistent)
        )
    }

    /// The checks after a shutdown returned.
    static func check(_ scope: StressScope, builtBefore built: (Int, Int, Int)) -> String? {
        let ledger = scope.ledger
        let label = scope.node.expect.label
        ledger.shutdownReturned.store(true, ordering: .sequentiallyConsistent)
        let shutdowns = (
            ledger.scopedShutdowns.load(ordering: .sequentiallyConsistent),
            ledger.transientShutdowns.load(ordering: .sequentiallyConsistent),
            ledger.singletonShutdowns.load(ordering: .sequentiallyConsistent)
        )
        if shutdowns.0 < built.0 || shutdowns.1 < built.1 || shutdowns.2 < built.2 {
            return "after '\(label)' was shut down, (scoped, transient, singleton) shutdowns \(shutdowns) "
                + "are fewer than the builds before \(built)"
        }
        if ledger.scopedBuilds.load(ordering: .sequentiallyConsistent) > 1 {
            return "'\(label)' built its scoped object more than once"
        }
        let context = scope.node.context
        if !context.isEnded { return "'\(label)' is not ended after its shutdown returned" }
        do {
            _ = try context.require(StressScoped.self)
            return "'\(label)' resolved its scoped object after its shutdown returned"
        } catch {
            if error.code != .scopeEnded { return "'\(label)' threw \(error.code) after its shutdown, not scopeEnded" }
        }
        if (context.resolve(StressTransient.self) as StressTransient?) != nil {
            return "'\(label)' built a transient after its shutdown returned"
        }
        let reading = scope.node.expect.reading(stamp: context[\.stressBranchStamp], .branchStamp)
        if let problem = reading.problem { return "'\(label)' after its shutdown: \(problem)" }
        if let host = scope.host {
            if host.members.contains(where: { $0.context === context }) {
                return "'\(label)' is still listed by its host after its shutdown returned"
            }
            if let route = scope.route, host.preference(\.stressRoutes).contains(route) {
                return "'\(label)''s route is still in its host's preference after its shutdown returned"
            }
        }
        return nil
    }
}
