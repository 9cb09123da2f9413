// What the stress test's contexts hold: values that name the context that set them and their version
// there (in a struct holding a String, a class, a String, an Int and a trivial two-word struct), objects
// that count their builds, shutdowns and lives, and the ledgers their factories write to.

import Synchronization

@testable import Contextual

// MARK: - Values

/// A value that names the context that set it (`"root"`, `"b2"`, `"leaf 17"`; `"default"` for a key's
/// default) and its version there: each update of that context sets the next version.
struct StressStamp: Sendable, Equatable {
    var owner: String
    var version: Int
    /// Set by the transform of a branch's `inner` context, for what is below it.
    var transformed = false

    static let unset = StressStamp(owner: "default", version: 0)
}

/// Trivial values that name their owner and version: the owner in the high 32 bits of an `Int`.
enum StressCode {
    static let rootOwner = 1

    static func branchOwner(_ branch: Int) -> Int { 100 + branch }

    static func leafOwner(_ leaf: Int) -> Int { 1_000 + leaf }

    static func make(owner: Int, version: Int) -> Int { owner << 32 | version }

    static func owner(_ code: Int) -> Int { code >> 32 }

    static func version(_ code: Int) -> Int { code & 0xFFFF_FFFF }
}

/// A trivial value of two words, which optimized builds keep in an `@Injected` property's words: a torn
/// read shows as a check that does not match its code.
struct StressPair: Sendable, Equatable {
    var code: Int
    var check: Int

    init(code: Int) {
        self.code = code
        self.check = StressPair.check(of: code)
    }

    static func check(of code: Int) -> Int {
        (code &* Int(truncatingIfNeeded: UInt64(0x9E37_79B9_7F4A_7C15))) ^ 0x5A5A_5A5A
    }

    var isWhole: Bool { check == StressPair.check(of: code) }
}

/// A value that is a class: its owner and version, and a live count.
final class StressBox: Sendable {
    let owner: String
    let version: Int
    private let live: StressLive?

    init(owner: String, version: Int, live: StressLive?) {
        self.owner = owner
        self.version = version
        self.live = live
        live?.madeOne()
    }

    deinit {
        live?.endedOne()
    }
}

/// An object provided by value (`provide(_:)`) by each branch, replaced by updates.
final class StressBranchObject: Sendable {
    let branch: Int
    let version: Int
    private let live: StressLive

    init(branch: Int, version: Int, live: StressLive) {
        self.branch = branch
        self.version = version
        self.live = live
        live.madeOne()
    }

    deinit {
        live.endedOne()
    }
}

// MARK: - Keys

enum StressRootStampKey: ContextKey {
    static var defaultValue: StressStamp { .unset }
}

enum StressRootCodeKey: ContextKey {
    static var defaultValue: Int { 0 }
}

enum StressBranchStampKey: ContextKey {
    static var defaultValue: StressStamp { .unset }
}

enum StressBranchCodeKey: ContextKey {
    static var defaultValue: Int { 0 }
}

enum StressBranchPairKey: ContextKey {
    static var defaultValue: StressPair { StressPair(code: 0) }
}

enum StressBranchBoxKey: ContextKey {
    static var defaultValue: StressBox { StressBox(owner: "default", version: 0, live: nil) }
}

enum StressBranchLabelKey: ContextKey {
    static var defaultValue: String { "default:0" }
}

enum StressLeafStampKey: ContextKey {
    static var defaultValue: StressStamp { .unset }
}

enum StressLeafCodeKey: ContextKey {
    static var defaultValue: Int { 0 }
}

/// The ledger of the nearest context that sets one: a scope, or a branch's middle context.
enum StressLedgerKey: ContextKey {
    static var defaultValue: StressLedger? { nil }
}

/// A value nobody checks, set by short-lived children.
enum StressNoteKey: ContextKey {
    static var defaultValue: String { "" }
}

extension ContextValues {
    var stressRootStamp: StressStamp {
        get { self[StressRootStampKey.self] }
        set { self[StressRootStampKey.self] = newValue }
    }

    var stressRootCode: Int {
        get { self[StressRootCodeKey.self] }
        set { self[StressRootCodeKey.self] = newValue }
    }

    var stressBranchStamp: StressStamp {
        get { self[StressBranchStampKey.self] }
        set { self[StressBranchStampKey.self] = newValue }
    }

    var stressBranchCode: Int {
        get { self[StressBranchCodeKey.self] }
        set { self[StressBranchCodeKey.self] = newValue }
    }

    var stressBranchPair: StressPair {
        get { self[StressBranchPairKey.self] }
        set { self[StressBranchPairKey.self] = newValue }
    }

    var stressBranchBox: StressBox {
        get { self[StressBranchBoxKey.self] }
        set { self[StressBranchBoxKey.self] = newValue }
    }

    var stressBranchLabel: String {
        get { self[StressBranchLabelKey.self] }
        set { self[StressBranchLabelKey.self] = newValue }
    }

    var stressLeafStamp: StressStamp {
        get { self[StressLeafStampKey.self] }
        set { self[StressLeafStampKey.self] = newValue }
    }

    var stressLeafCode: Int {
        get { self[StressLeafCodeKey.self] }
        set { self[StressLeafCodeKey.self] = newValue }
    }

    var stressLedger: StressLedger? {
        get { self[StressLedgerKey.self] }
        set { self[StressLedgerKey.self] = newValue }
    }

    var stressNote: String {
        get { self[StressNoteKey.self] }
        set { self[StressNoteKey.self] = newValue }
    }
}

// MARK: - Members' values and preferences

enum StressRoutesKey: ArrayContributionKey {
    typealias Element = String
}

enum StressOwnerKey: ContainerValueKey {
    static var defaultValue: String { "" }
}

extension PreferenceValues {
    var stressRoutes: [String] {
        get { self[StressRoutesKey.self] }
        set { self[StressRoutesKey.self] = newValue }
    }
}

extension ContainerValues {
    var stressOwner: String {
        get { self[StressOwnerKey.self] }
        set { self[StressOwnerKey.self] = newValue }
    }
}

// MARK: - Ledgers

/// What the factories building for one context record: a scope (its scoped and transient objects, and
/// the singleton it registers), a branch's middle context (the scoped objects resolved below it outside
/// any scope), a leaf or the root (the singleton each registers).
final class StressLedger: Sendable {
    let label: String
    let scopedBuilds = Atomic<Int>(0)
    let scopedShutdowns = Atomic<Int>(0)
    /// The serial of the first scoped object resolved from it: every resolve must give that one.
    let scopedSerial = Atomic<Int>(0)
    let transientBuilds = Atomic<Int>(0)
    let transientShutdowns = Atomic<Int>(0)
    let singletonBuilds = Atomic<Int>(0)
    let singletonShutdowns = Atomic<Int>(0)
    let singletonSerial = Atomic<Int>(0)
    /// Set before its shutdown is called: a resolve that finds the scope ended before it was is a bug.
    let shutdownStarted = Atomic<Bool>(false)
    /// Set when its shutdown returned.
    let shutdownReturned = Atomic<Bool>(false)

    init(label: String) {
        self.label = label
    }

    /// Records the serial of an object resolved from it; false when another one was resolved before.
    func agrees(_ serial: Int, on kept: borrowing Atomic<Int>) -> Bool {
        let (exchanged, original) = kept.compareExchange(
            expected: 0,
            desired: serial,
            ordering: .sequentiallyConsistent
        )
        return exchanged || original == serial
    }
}

// MARK: - Built objects

/// What every built object shares: a serial, the ledger it counts in, a live count, and a shutdown that
/// must happen at most once.
final class StressBuildRecord: Sendable {
    let serial: Int
    let ledger: StressLedger
    let shutdowns = Atomic<Int>(0)
    private let live: StressLive
    private let violations: StressViolations

    init(serial: Int, ledger: StressLedger, live: StressLive, violations: StressViolations) {
        self.serial = serial
        self.ledger = ledger
        self.live = live
        self.violations = violations
        live.madeOne()
    }

    deinit {
        live.endedOne()
    }

    /// Counts a shutdown in `counter`; a second shutdown of the same object is a violation.
    func shutDown(counting counter: borrowing Atomic<Int>) {
        let count = shutdowns.add(1, ordering: .sequentiallyConsistent).newValue
        counter.add(1, ordering: .sequentiallyConsistent)
        if count > 1 { violations.record("\(live.kind) #\(serial) of \(ledger.label) was shut down \(count) times") }
    }
}

/// Built once per scope by a scoped provider of the root.
final class StressScoped: ScopeShutdown {
    let record: StressBuildRecord

    init(record: StressBuildRecord) {
        self.record = record
        record.ledger.scopedBuilds.add(1, ordering: .sequentiallyConsistent)
    }

    func shutdown() async throws {
        record.shutDown(counting: record.ledger.scopedShutdowns)
    }
}

/// Built on every resolve by a transient provider of the root; shut down with the scope it was built for.
final class StressTransient: ScopeShutdown {
    let record: StressBuildRecord

    init(record: StressBuildRecord) {
        self.record = record
        record.ledger.transientBuilds.add(1, ordering: .sequentiallyConsistent)
    }

    func shutdown() async throws {
        record.shutDown(counting: record.ledger.transientShutdowns)
    }
}

/// Built once by a singleton provider: the root's, a leaf's, or a scope's (the nearest wins).
final class StressSingleton: ScopeShutdown {
    let record: StressBuildRecord

    init(record: StressBuildRecord) {
        self.record = record
        record.ledger.singletonBuilds.add(1, ordering: .sequentiallyConsistent)
    }

    func shutdown() async throws {
        record.shutDown(counting: record.ledger.singletonShutdowns)
    }
}

/// Built once by the root's async singleton provider.
final class StressAsyncSingleton: Sendable {
    let record: StressBuildRecord

    init(record: StressBuildRecord) {
        self.record = record
        record.ledger.singletonBuilds.add(1, ordering: .sequentiallyConsistent)
    }
}
