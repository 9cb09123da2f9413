// The stress run's tree of contexts, what a reader must see in each context, and the checks of what it
// read: the right owner (never another branch's value), never an older version after a newer one.

import Synchronization

@testable import Contextual

// MARK: - Keys checked

/// The values readers check, each owned by one level of the tree: the root, a branch, a leaf.
enum StressKey: Int, CaseIterable, Sendable {
    case rootStamp, rootCode
    case branchStamp, branchCode, branchPair, branchBox, branchLabel, branchObject
    case leafStamp, leafCode

    /// The keys a branch's update sets (the object is replaced on its own).
    static let branchValues: [StressKey] = [.branchStamp, .branchCode, .branchPair, .branchBox, .branchLabel]
}

// MARK: - Run

/// What every part of a run shares: its settings, its end, its violations and its live counts.
final class StressRun: Sendable {
    let settings: StressSettings
    let violations: StressViolations
    let deadline: ContinuousClock.Instant
    private let stop = Atomic<Bool>(false)
    private let serials = Atomic<Int>(0)
    let boxes = StressLive("StressBox")
    let objects = StressLive("StressBranchObject")
    let scoped = StressLive("StressScoped")
    let transients = StressLive("StressTransient")
    let singletons = StressLive("StressSingleton")
    let asyncSingletons = StressLive("StressAsyncSingleton")
    /// Where its tasks run (shutdowns awaited for its threads, its task workers): threads of its own.
    let executor: StressExecutor

    init(settings: StressSettings, executor: StressExecutor) {
        self.settings = settings
        self.executor = executor
        self.violations = StressViolations(seed: settings.seed)
        self.deadline = ContinuousClock.now + .milliseconds(Int(settings.seconds * 1_000))
    }

    var lives: [StressLive] { [boxes, objects, scoped, transients, singletons, asyncSingletons] }

    /// Whether the workers go on: until the deadline, or until a violation stopped the run.
    var isRunning: Bool {
        !stop.load(ordering: .relaxed) && ContinuousClock.now < deadline
    }

    func stopNow() {
        stop.store(true, ordering: .relaxed)
    }

    func violation(_ message: String) {
        violations.record(message)
    }

    /// The record of an object built now, counted in `ledger` and in `live`.
    func record(_ ledger: StressLedger, _ live: StressLive) -> StressBuildRecord {
        StressBuildRecord(
            serial: serials.add(1, ordering: .relaxed).newValue,
            ledger: ledger,
            live: live,
            violations: violations
        )
    }
}

// MARK: - Nodes

/// Which part of the tree a context is.
enum StressNodeKind: Sendable {
    case root, middle, inner, leaf, member, scope, child
}

/// What a reader must see in a context. It holds no context, so that observers' handlers can keep it.
struct StressExpectation: Sendable {
    /// Unique in the run: readers keep the last version they saw per context and key by it.
    let id: Int
    let label: String
    let kind: StressNodeKind
    /// The branch whose values it sees, or nil on the root's side (the root, and scopes and children of it),
    /// which sees every branch key's default.
    let branch: Int?
    /// Whether it is below its branch's `inner` context, whose transform marks the branch's stamp.
    let transformed: Bool
    /// The leaf whose values it sees, if it is one or below one.
    let leaf: Int?
    /// Where a scoped object resolved here is counted: the nearest scope's ledger, or the branch's
    /// middle's (below which a context outside any scope resolves it); nil at the root (no scope).
    let scopedLedger: StressLedger?
    /// Whether `scopedLedger` is a scope's, so that transients may be resolved here.
    let inScope: Bool
    /// The ledger of the nearest registrar of `StressSingleton`: the root's, a leaf's or a scope's.
    let singletonLedger: StressLedger

    /// The expectation of a child of this context that changes what `changing` says.
    func derived(
        id: Int,
        label: String,
        kind: StressNodeKind,
        leaf: Int? = nil,
        scopedLedger: StressLedger? = nil,
        inScope: Bool? = nil,
        singletonLedger: StressLedger? = nil
    ) -> StressExpectation {
        StressExpectation(
            id: id,
            label: label,
            kind: kind,
            branch: branch,
            transformed: transformed,
            leaf: leaf ?? self.leaf,
            scopedLedger: scopedLedger ?? self.scopedLedger,
            inScope: inScope ?? self.inScope,
            singletonLedger: singletonLedger ?? self.singletonLedger
        )
    }

    /// The owner a key's value must name here; nil: the key's default.
    func owner(of key: StressKey) -> (name: String, code: Int)? {
        switch key {
        case .rootStamp, .rootCode: ("root", StressCode.rootOwner)
        case .leafStamp, .leafCode: leaf.map { ("leaf \($0)", StressCode.leafOwner($0)) }
        default: branch.map { ("b\($0)", StressCode.branchOwner($0)) }
        }
    }

    /// The index of the floor a key's versions must not go below, in a reader's own writes; nil for a
    /// default (always version 0).
    func floorIndex(of key: StressKey) -> Int? {
        let owner: Int? =
            switch key {
            case .rootStamp, .rootCode: 0
            case .leafStamp, .leafCode: leaf.map { 1_000 + $0 }
            default: branch.map { 1 + $0 }
            }
        return owner.map { $0 &* 16 &+ key.rawValue }
    }
}

/// A context of the tree and what a reader must see in it.
struct StressNode: Sendable {
    let context: Context
    let expect: StressExpectation
}

/// A leaf: a short-lived context below a branch, replaced now and then, that sets values of its own and
/// registers a singleton.
final class StressLeaf: Sendable {
    let node: StressNode
    let ledger: StressLedger
    let stampCommits = StressCounter()
    let codeCommits = StressCounter()

    init(node: StressNode, ledger: StressLedger) {
        self.node = node
        self.ledger = ledger
    }
}

/// A scope in the shared pool, which any worker may resolve from or shut down.
final class StressScope: Sendable {
    let node: StressNode
    let ledger: StressLedger
    /// Its parent, when the scope was registered as a member of it, and the route it contributes.
    let host: Context?
    let route: String?

    init(node: StressNode, ledger: StressLedger, host: Context?, route: String?) {
        self.node = node
        self.ledger = ledger
        self.host = host
        self.route = route
    }
}

/// A member of a branch's middle context: held here when it is a weak member, else held by its host only.
final class StressMember: Sendable {
    let held: Context?
    let weak: StressWeakContext
    let expect: StressExpectation
    let name: String
    let ownership: MemberOwnership

    init(context: Context, expect: StressExpectation, name: String, ownership: MemberOwnership) {
        self.held = ownership == .weak ? context : nil
        self.weak = StressWeakContext(context: context, label: name)
        self.expect = expect
        self.name = name
        self.ownership = ownership
    }

    var node: StressNode? {
        (held ?? weak.context).map { StressNode(context: $0, expect: expect) }
    }
}

/// A branch of the tree: a middle context (an owned member of the root) that sets the branch's values and
/// provides its object, an `inner` child that transforms the branch's stamp, and leaves below either.
final class StressBranch: Sendable {
    let index: Int
    let name: String
    let middle: StressNode
    let inner: StressNode
    let ledger: StressLedger
    /// The updates committed per key, by `StressKey.rawValue`.
    let commits: [StressCounter]
    let leaves: Locked<[StressLeaf]>
    let members = Locked<[StressMember]>.make([])

    init(index: Int, middle: StressNode, inner: StressNode, ledger: StressLedger, leaves: [StressLeaf]) {
        self.index = index
        self.name = "b\(index)"
        self.middle = middle
        self.inner = inner
        self.ledger = ledger
        self.commits = StressKey.allCases.map { _ in StressCounter() }
        self.leaves = Locked.make(leaves)
    }
}

// MARK: - World

/// The tree every worker works on.
final class StressWorld: Sendable {
    static let branchCount = 3
    static let leavesPerBranch = 3
    static let scopeLimit = 12
    static let memberLimit = 6

    let run: StressRun
    let root: StressNode
    let rootLedger = StressLedger(label: "root")
    let asyncLedger = StressLedger(label: "root (async)")
    let rootCommits: [StressCounter] = StressKey.allCases.map { _ in StressCounter() }
    let branches: [StressBranch]
    let scopes = Locked<[StressScope]>.make([])
    /// Set when a `prepare` of the async singleton returned: synchronous resolves must then give it.
    let asyncPrepared = Atomic<Bool>(false)
    private let ids: Atomic<Int>

    init(run: StressRun) {
        self.run = run
        let rootLedger = rootLedger
        let asyncLedger = asyncLedger
        let rootContext = Context(name: "stress root") { values in
            values.stressRootStamp = StressStamp(owner: "root", version: 0)
            values.stressRootCode = StressCode.make(owner: StressCode.rootOwner, version: 0)
            values.preferences.stressRoutes = ["root"]
            values.provide(StressScoped.self, lifetime: .scoped) { scope in
                guard let ledger = scope[\.stressLedger] else { throw StressFailure("a scope without a ledger") }
                return StressScoped(record: run.record(ledger, run.scoped))
            }
            values.provide(StressTransient.self, lifetime: .transient) { asker in
                guard let ledger = asker[\.stressLedger] else { throw StressFailure("an asker without a ledger") }
                return StressTransient(record: run.record(ledger, run.transients))
            }
            values.provide(StressSingleton.self, lifetime: .singleton) { _ in
                StressSingleton(record: run.record(rootLedger, run.singletons))
            }
            values.provide(StressAsyncSingleton.self, lifetime: .singleton) { _ async in
                await Task.yield()
                return StressAsyncSingleton(record: run.record(asyncLedger, run.asyncSingletons))
            }
        }
        let rootExpect = StressExpectation(
            id: 1,
            label: "root",
            kind: .root,
            branch: nil,
            transformed: false,
            leaf: nil,
            scopedLedger: nil,
            inScope: false,
            singletonLedger: rootLedger
        )
        root = StressNode(context: rootContext, expect: rootExpect)
        var nextID = 2
        var branches: [StressBranch] = []
        for index in 0..<StressWorld.branchCount {
            let name = "b\(index)"
            let ledger = StressLedger(label: "middle \(name)")
            let middle = rootContext.member(name: name, ownership: .owned) { values in
                values.stressBranchStamp = StressStamp(owner: name, version: 0)
                values.stressBranchCode = StressCode.make(owner: StressCode.branchOwner(index), version: 0)
                values.stressBranchPair = StressPair(
                    code: StressCode.make(owner: StressCode.branchOwner(index), version: 0)
                )
                values.stressBranchBox = StressBox(owner: name, version: 0, live: run.boxes)
                values.stressBranchLabel = "\(name):0"
                values.stressLedger = ledger
                values.provide(StressBranchObject(branch: index, version: 0, live: run.objects))
                values.preferences.stressRoutes = [name]
                values.containerValues.stressOwner = "root"
            }
            let middleExpect = StressExpectation(
                id: nextID,
                label: "middle \(name)",
                kind: .middle,
                branch: index,
                transformed: false,
                leaf: nil,
                scopedLedger: ledger,
                inScope: false,
                singletonLedger: rootLedger
            )
            let inner = middle.child(transforming: \.stressBranchStamp, name: "\(name) inner") { $0.transformed = true }
            let innerExpect = StressExpectation(
                id: nextID + 1,
                label: "inner \(name)",
                kind: .inner,
                branch: index,
                transformed: true,
                leaf: nil,
                scopedLedger: ledger,
                inScope: false,
                singletonLedger: rootLedger
            )
            nextID += 2
            let middleNode = StressNode(context: middle, expect: middleExpect)
            let innerNode = StressNode(context: inner, expect: innerExpect)
            var leaves: [StressLeaf] = []
            for slot in 0..<StressWorld.leavesPerBranch {
                leaves.append(
                    StressWorld.makeLeaf(id: nextID, below: slot.isMultiple(of: 2) ? middleNode : innerNode, run: run)
                )
                nextID += 1
            }
            branches.append(
                StressBranch(index: index, middle: middleNode, inner: innerNode, ledger: ledger, leaves: leaves)
            )
        }
        self.branches = branches
        self.ids = Atomic(nextID)
    }

    /// A new id, unique in the run.
    func nextID() -> Int {
        ids.add(1, ordering: .relaxed).newValue
    }

    /// A leaf below `parent` (a branch's middle or inner context) that sets its own values and registers
    /// a singleton.
    static func makeLeaf(id: Int, below parent: StressNode, run: StressRun) -> StressLeaf {
        let ledger = StressLedger(label: "leaf \(id)")
        let context = parent.context.child(name: "leaf \(id)") { values in
            values.stressLeafStamp = StressStamp(owner: "leaf \(id)", version: 0)
            values.stressLeafCode = StressCode.make(owner: StressCode.leafOwner(id), version: 0)
            values.provide(StressSingleton.self, lifetime: .singleton) { _ in
                StressSingleton(record: run.record(ledger, run.singletons))
            }
        }
        let expect = parent.expect.derived(
            id: id,
            label: "leaf \(id)",
            kind: .leaf,
            leaf: id,
            singletonLedger: ledger
        )
        return StressLeaf(node: StressNode(context: context, expect: expect), ledger: ledger)
    }
}

/// What a factory throws when the tree is not as the test built it.
struct StressFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

// MARK: - Readings

/// What a read gave: the version it names, or what is wrong with it.
struct StressReading {
    let version: Int
    let problem: String?

    static func ok(_ version: Int) -> StressReading { StressReading(version: version, problem: nil) }

    static func wrong(_ problem: String) -> StressReading { StressReading(version: 0, problem: problem) }
}

extension StressExpectation {
    /// A stamp read under `key`.
    func reading(stamp: StressStamp, _ key: StressKey) -> StressReading {
        guard let owner = owner(of: key) else {
            return stamp == .unset ? .ok(0) : .wrong("saw \(stamp) where only the default is visible")
        }
        guard stamp.owner == owner.name else {
            return .wrong("saw \(stamp.owner)'s \(stamp), expected \(owner.name)'s")
        }
        let transformed = key == .branchStamp && self.transformed
        guard stamp.transformed == transformed else {
            return .wrong("saw \(stamp), expected transformed == \(transformed)")
        }
        return .ok(stamp.version)
    }

    /// An `Int` code read under `key`.
    func reading(code: Int, _ key: StressKey) -> StressReading {
        guard let owner = owner(of: key) else {
            return code == 0 ? .ok(0) : .wrong("saw code \(code) where only the default (0) is visible")
        }
        guard StressCode.owner(code) == owner.code else {
            return .wrong("saw the code of owner \(StressCode.owner(code)) (version \(StressCode.version(code)))")
        }
        return .ok(StressCode.version(code))
    }

    func reading(pair: StressPair) -> StressReading {
        guard pair.isWhole else { return .wrong("saw a torn pair: code \(pair.code), check \(pair.check)") }
        return reading(code: pair.code, .branchPair)
    }

    func reading(box: StressBox) -> StressReading {
        guard let owner = owner(of: .branchBox) else {
            return box.owner == "default" && box.version == 0 ? .ok(0) : .wrong("saw \(box.owner)'s box")
        }
        return box.owner == owner.name ? .ok(box.version) : .wrong("saw \(box.owner)'s box, expected \(owner.name)'s")
    }

    func reading(label: String) -> StressReading {
        let parts = label.split(separator: ":")
        guard parts.count == 2, let version = Int(parts[1]) else { return .wrong("saw a malformed label '\(label)'") }
        let expected = owner(of: .branchLabel)?.name ?? "default"
        return parts[0] == expected ? .ok(version) : .wrong("saw label '\(label)', expected \(expected)'s")
    }

    func reading(object: StressBranchObject?) -> StressReading {
        guard let branch else {
            return object == nil ? .ok(0) : .wrong("resolved branch b\(object!.branch)'s object on the root's side")
        }
        guard let object else { return .wrong("resolved no branch object") }
        return object.branch == branch ? .ok(object.version) : .wrong("resolved branch b\(object.branch)'s object")
    }
}

// MARK: - Order

/// What one reader (a thread or a task) saw: the last version per context and key, and the versions its
/// own updates committed. A reader never sees an older version after a newer one in the same context,
/// nor a version older than one it committed itself.
struct StressOrder {
    private var lastSeen: [Int: Int] = [:]
    private var floors: [Int: Int] = [:]

    /// Checks a reading of `key` in the context `expect` describes; returns the violation, if any.
    mutating func check(
        _ reading: StressReading,
        _ key: StressKey,
        at expect: StressExpectation,
        form: String
    )
        -> String?
    {
        if let problem = reading.problem { return "\(form) of \(key) in '\(expect.label)': \(problem)" }
        guard let floorIndex = expect.floorIndex(of: key) else { return nil }
        if let floor = floors[floorIndex], reading.version < floor {
            return "\(form) of \(key) in '\(expect.label)' saw version \(reading.version) after this reader's own "
                + "update committed version \(floor)"
        }
        if lastSeen.count > 200_000 { lastSeen.removeAll(keepingCapacity: true) }
        let seenIndex = expect.id &* 16 &+ key.rawValue
        if let last = lastSeen[seenIndex], reading.version < last {
            return "\(form) of \(key) in '\(expect.label)' saw version \(reading.version) after version \(last)"
        }
        lastSeen[seenIndex] = reading.version
        return nil
    }

    /// Records that this reader's own update committed `version` of `key`, as seen from `expect`.
    mutating func committed(_ version: Int, _ key: StressKey, at expect: StressExpectation) {
        guard let floorIndex = expect.floorIndex(of: key) else { return }
        floors[floorIndex] = max(floors[floorIndex] ?? 0, version)
    }
}
