// The stress test's harness: a seeded generator per worker, the run's settings from the environment,
// threads that are waited for with a bound, live-object counts, and the violations found.

import Dispatch
import Foundation
import Synchronization

@testable import Contextual

// MARK: - SplitMix64

/// SplitMix64 (Steele, Lea and Flood): a small, fast generator, the same sequence for the same seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound` (`bound` is small: the modulo's bias does not matter here).
    mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: next() % UInt64(bound))
    }

    /// True `percent` times in 100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// One of `elements`, which is not empty.
    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[below(elements.count)]
    }

    /// The seed of worker `index` in a run seeded with `master`: each worker draws its own sequence.
    static func seed(ofWorker index: Int, master: UInt64) -> UInt64 {
        var generator = SplitMix64(seed: master ^ (UInt64(index) &+ 1) &* 0xD6E8_FEB8_6659_FD93)
        return generator.next()
    }
}

// MARK: - Settings

/// How long the stress run lasts and what it is seeded with: `CONTEXTUAL_STRESS_SECONDS` (2.5 unless
/// set) and `CONTEXTUAL_STRESS_SEED` (decimal, or hexadecimal after `0x`; random unless set).
struct StressSettings: Sendable {
    let seed: UInt64
    let seconds: Double
    /// What could not be read from the environment, for the test to report.
    let problems: [String]

    static let defaultSeconds = 2.5

    static func fromEnvironment() -> StressSettings {
        let environment = ProcessInfo.processInfo.environment
        var problems: [String] = []
        var seed = UInt64.random(in: .min ... .max)
        if let text = environment["CONTEXTUAL_STRESS_SEED"] {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let parsed =
                trimmed.lowercased().hasPrefix("0x") ? UInt64(trimmed.dropFirst(2), radix: 16) : UInt64(trimmed)
            if let parsed { seed = parsed } else { problems.append("CONTEXTUAL_STRESS_SEED=\(text) is not a number") }
        }
        var seconds = defaultSeconds
        if let text = environment["CONTEXTUAL_STRESS_SECONDS"] {
            if let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed > 0, parsed.isFinite {
                seconds = parsed
            } else {
                problems.append("CONTEXTUAL_STRESS_SECONDS=\(text) is not a positive number of seconds")
            }
        }
        return StressSettings(seed: seed, seconds: seconds, problems: problems)
    }
}

// MARK: - Violations

/// The invariants found broken, from any thread: every one is counted; the first three of each kind (the
/// message with its numbers left out) are kept and printed, so that a frequent one hides no other.
final class StressViolations: Sendable {
    private let kept = Locked<(messages: [String], kinds: [String: Int])>.make(([], [:]))
    private let total = Atomic<Int>(0)
    let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
    }

    func record(_ message: String) {
        total.add(1, ordering: .relaxed)
        let kind = String(message.filter { !$0.isNumber }.prefix(90))
        let keep = kept.withLock { kept -> Bool in
            kept.kinds[kind, default: 0] += 1
            guard kept.kinds[kind]! <= 3, kept.messages.count < 100 else { return false }
            kept.messages.append(message)
            return true
        }
        if keep { print("stress violation (seed \(seed)): \(message)") }
    }

    var count: Int { total.load(ordering: .relaxed) }
    var first: [String] { kept.withLock { $0.messages } }

    /// How many of each kind, most frequent first.
    var kinds: [(kind: String, count: Int)] {
        kept.withLock { $0.kinds }.map { (kind: $0.key, count: $0.value) }.sorted { $0.count > $1.count }
    }
}

// MARK: - Live objects

/// How many objects of one kind were made and how many are still alive.
final class StressLive: Sendable {
    let kind: String
    private let alive = Atomic<Int>(0)
    private let made = Atomic<Int>(0)

    init(_ kind: String) {
        self.kind = kind
    }

    func madeOne() {
        alive.add(1, ordering: .relaxed)
        made.add(1, ordering: .relaxed)
    }

    func endedOne() {
        alive.subtract(1, ordering: .relaxed)
    }

    var aliveCount: Int { alive.load(ordering: .acquiring) }
    var madeCount: Int { made.load(ordering: .relaxed) }
}

/// A counter that can sit in an array (an `Atomic` cannot be copied).
final class StressCounter: Sendable {
    private let value = Atomic<Int>(0)

    @discardableResult
    func increment() -> Int {
        value.add(1, ordering: .sequentiallyConsistent).newValue
    }

    var count: Int { value.load(ordering: .sequentiallyConsistent) }
}

/// A context held weakly, to check at the end that it was released.
struct StressWeakContext: @unchecked Sendable {
    // `@unchecked`: set once, when made; a weak reference is loaded atomically by the runtime.
    weak var context: Context?
    let label: String
}

// MARK: - Threads

/// Threads that each run a body once, and that can be waited for with a bound: a thread stuck in the
/// library makes the wait fail with a message instead of hanging the test run.
final class StressThreads: Sendable {
    private let finished = StressCounter()
    let count: Int

    init(_ bodies: [@Sendable () -> Void]) {
        count = bodies.count
        for (index, body) in bodies.enumerated() {
            let thread = Thread { [finished] in
                body()
                finished.increment()
            }
            thread.name = "stress worker \(index)"
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    var allFinished: Bool { finished.count == count }
}

/// Runs `operation` in a task on `executor` and blocks this thread (one of the stress run's own, never
/// one of the cooperative pool) until it returns, for at most `limit`; nil when it did not return in time.
func stressBlockingAwait<Result: Sendable>(
    upTo limit: DispatchTimeInterval,
    on executor: StressExecutor,
    _ operation: @escaping @Sendable () async -> Result
) -> Result? {
    let done = DispatchSemaphore(value: 0)
    let result = Locked<Result?>.make(nil)
    Task(executorPreference: executor) {
        let value = await operation()
        result.withLock { $0 = value }
        done.signal()
    }
    guard done.wait(timeout: .now() + limit) == .success else { return nil }
    return result.withLock { $0 }
}

// MARK: - Executor

/// Threads of the stress run's own that run its tasks, so that the run never waits for the cooperative
/// pool, which the other tests of a `swift test` run keep busy (the run made a few hundred operations
/// instead of tens of thousands there).
final class StressExecutor: TaskExecutor {
    private let jobs = Locked<[UnownedJob]>.make([])
    private let available = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let threadCount: Int

    init(threads: Int) {
        threadCount = threads
        for index in 0..<threads {
            let thread = Thread { [self] in runJobs() }
            thread.name = "stress executor \(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    /// Lets its threads end once the jobs enqueued are run.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        for _ in 0..<threadCount { available.signal() }
    }

    private func runJobs() {
        while true {
            available.wait()
            let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let job {
                job.runSynchronously(on: asUnownedTaskExecutor())
            } else if stopping.load(ordering: .sequentiallyConsistent) {
                return
            }
        }
    }
}
