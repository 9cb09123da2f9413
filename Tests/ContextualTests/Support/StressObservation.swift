// The stress run's observations: what each handler saw, checked as it runs (the right owner, newest
// last, never concurrently with itself) and after the run (nothing after its cancellation returned, the
// final value delivered).

import Synchronization

@testable import Contextual

/// A token held weakly, so that a handler can cancel its own subscription without keeping it alive.
struct StressWeakToken {
    weak var token: ObservationToken?
}

/// One observation made by a worker, and what its handler saw.
final class StressSubscription: Sendable {
    enum Kind: Sendable {
        /// `observe(\.key)`: the version of what the key holds.
        case value(StressKey)
        /// `observe(StressBranchObject.self)`.
        case object
        /// `observePreference(\.stressRoutes)` on a branch's middle context.
        case routes
        /// `withContinuousTracking` of the branch's stamp.
        case tracking
    }

    let label: String
    let kind: Kind
    let expect: StressExpectation
    let weak: StressWeakContext
    /// After how many deliveries the handler cancels its own subscription (0: never).
    let selfCancelAfter: Int
    /// Whether equal versions twice in a row are a violation (equal values notify nobody), or only older.
    let strict: Bool
    let token = Locked<StressWeakToken>.make(StressWeakToken())
    private let violations: StressViolations
    private let inHandler = Atomic<Bool>(false)
    /// The last version delivered (-1: none yet).
    let last = Atomic<Int>(-1)
    let deliveries = Atomic<Int>(0)
    /// Set once a cancellation (by the worker, or by the handler itself) returned.
    let cancelReturned = Atomic<Bool>(false)
    /// The newest version a delivery after `cancelReturned` may carry: what the observed context held
    /// right after the cancellation returned (-1 when the handler cancelled itself: nothing may follow).
    let cutoff = Atomic<Int>(.max)
    /// The version the context held right after the subscription was made (-1: not read).
    let startVersion = Atomic<Int>(-1)
    /// Versions delivered to calls that began after `cancelReturned` was set.
    let late = Locked<[Int]>.make([])

    init(
        label: String,
        kind: Kind,
        node: StressNode,
        selfCancelAfter: Int,
        strict: Bool,
        violations: StressViolations
    ) {
        self.label = label
        self.kind = kind
        self.expect = node.expect
        self.weak = StressWeakContext(context: node.context, label: label)
        self.selfCancelAfter = selfCancelAfter
        self.strict = strict
        self.violations = violations
    }

    /// Called by the handler with what it got.
    func deliver(_ reading: StressReading) {
        if inHandler.exchange(true, ordering: .sequentiallyConsistent) {
            violations.record("the handler of \(label) was called while it ran")
        }
        defer { inHandler.store(false, ordering: .sequentiallyConsistent) }
        let isLate = cancelReturned.load(ordering: .sequentiallyConsistent)
        if let problem = reading.problem { violations.record("the handler of \(label) got a wrong value: \(problem)") }
        if isLate { late.withLock { $0.append(reading.version) } }
        let previous = last.exchange(reading.version, ordering: .sequentiallyConsistent)
        if strict ? reading.version <= previous : reading.version < previous {
            violations.record("the handler of \(label) got version \(reading.version) after version \(previous)")
        }
        let count = deliveries.add(1, ordering: .sequentiallyConsistent).newValue
        // Once the worker stored the token (a first call may come before), and while it holds it (a token
        // being released cancels itself, a little later).
        if !isLate && selfCancelAfter > 0 && count >= selfCancelAfter, let token = token.withLock({ $0.token }) {
            token.cancel()
            // This thread delivers (handlers never run concurrently): nothing may follow.
            _ = cutoff.compareExchange(expected: .max, desired: -1, ordering: .sequentiallyConsistent)
            cancelReturned.store(true, ordering: .sequentiallyConsistent)
        }
    }

    /// The version the observed context holds now, or nil when it is gone or the kind has none.
    func currentVersion() -> Int? {
        guard let context = weak.context else { return nil }
        switch kind {
        case .value(let key): return StressSubscription.version(of: key, in: context, expect: expect)
        case .object: return (context.resolve(StressBranchObject.self) as StressBranchObject?)?.version
        case .tracking: return expect.reading(stamp: context[\.stressBranchStamp], .branchStamp).version
        case .routes: return nil
        }
    }

    /// Records a cancellation that just returned: later calls may only deliver what was current then.
    func cancelled() {
        cancelReturned.store(true, ordering: .sequentiallyConsistent)
        if let version = currentVersion() {
            _ = cutoff.compareExchange(expected: .max, desired: version, ordering: .sequentiallyConsistent)
        }
    }

    /// What is wrong after the run: a delivery that began after the cancellation returned with a value
    /// committed after it, or (for a live subscription) a final value never delivered.
    func problems(cancelled: Bool) -> [String] {
        var found: [String] = []
        let cutoff = cutoff.load(ordering: .sequentiallyConsistent)
        let late = late.withLock { $0 }
        if cutoff == -1, !late.isEmpty {
            found.append("the handler of \(label) was called \(late.count) times after it cancelled itself")
        } else if case .routes = kind {
        } else if let newer = late.first(where: { $0 > cutoff }) {
            found.append(
                "the handler of \(label) was called with version \(newer) after its cancellation returned "
                    + "(the context then held version \(cutoff))"
            )
        }
        let start = startVersion.load(ordering: .sequentiallyConsistent)
        if !cancelled, !cancelReturned.load(ordering: .sequentiallyConsistent), start >= 0,
            let final = currentVersion()
        {
            let last = last.load(ordering: .sequentiallyConsistent)
            if final > start && last != final {
                found.append(
                    "the handler of \(label) last got version \(last), but the context holds \(final) "
                        + "(\(start) when it subscribed): the final value never arrived"
                )
            }
        }
        return found
    }

    static func version(of key: StressKey, in context: Context, expect: StressExpectation) -> Int {
        switch key {
        case .rootStamp: expect.reading(stamp: context[\.stressRootStamp], key).version
        case .branchStamp: expect.reading(stamp: context[\.stressBranchStamp], key).version
        case .leafStamp: expect.reading(stamp: context[\.stressLeafStamp], key).version
        case .rootCode: expect.reading(code: context[\.stressRootCode], key).version
        case .branchCode: expect.reading(code: context[\.stressBranchCode], key).version
        case .leafCode: expect.reading(code: context[\.stressLeafCode], key).version
        case .branchPair: expect.reading(pair: context[\.stressBranchPair]).version
        case .branchBox: expect.reading(box: context[\.stressBranchBox]).version
        case .branchLabel: expect.reading(label: context[\.stressBranchLabel]).version
        case .branchObject: expect.reading(object: context.resolve(StressBranchObject.self)).version
        }
    }
}
