// The thread a boot report's validation runs on, so that a factory that blocks never takes a thread of
// the cooperative pool, which the report needs to return at its deadline (internal).
// Architecture: ARCHITECTURE.md, "The boot report's instruments".

// MARK: - BootExecutor

/// A task executor with a thread of its own, started when a job comes and ended when it has none left
/// after ``finish()``: the jobs of a boot report's validation (its synchronous factories included) run
/// there. A factory that never returns keeps that one thread, not one of the cooperative pool's few.
final class BootExecutor: TaskExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var finished = false
        var threadRunning = false
    }

    private let state = ConditionLocked(State())

    init() {}

    func enqueue(_ job: UnownedJob) {
        let start = state.withLockBroadcasting { state in
            state.jobs.append(job)
            defer { state.threadRunning = true }
            return !state.threadRunning
        }
        if start && !DetachedThread.start({ self.run() }) {
            // No thread to be had: a thread of the cooperative pool runs the jobs instead, and stays with
            // them until `finish()` (a factory that blocks then holds that thread).
            Task.detached { self.run() }
        }
    }

    /// Lets the thread end once it has no job left; a job that comes later starts a new one.
    func finish() {
        state.withLockBroadcasting { $0.finished = true }
    }

    private func run() {
        while true {
            let next = state.wait(
                until: { state -> UnownedJob?? in
                    if !state.jobs.isEmpty { return .some(state.jobs.removeFirst()) }
                    if state.finished {
                        state.threadRunning = false
                        return .some(nil)
                    }
                    return nil
                },
                atMost: .seconds(60)
            )
            switch next {
            case .some(.some(let job)): job.runSynchronously(on: asUnownedTaskExecutor())
            case .some(.none): return
            case .none: continue  // no job for a minute: wait again
            }
        }
    }
}

// MARK: - BootDeadline

/// Waits, on a thread of its own, for a boot report's validation to end or its deadline to pass,
/// whichever comes first, so that the report returns at the deadline even when the validation blocks.
final class BootDeadline: Sendable {
    private let ended = ConditionLocked(false)

    /// Calls `expire` after `deadline` unless ``end()`` came first.
    init(_ deadline: Duration, expire: @escaping @Sendable () -> Void) {
        let started = DetachedThread.start { [ended] in
            let ended: Bool? = ended.wait(until: { $0 ? true : nil }, atMost: deadline)
            if ended == nil { expire() }
        }
        if !started {
            // No thread to be had: a task sleeps until the deadline instead (a blocked cooperative pool
            // may then delay it).
            Task.detached { [ended] in
                try? await Task.sleep(for: deadline)
                if !ended.withLock({ $0 }) { expire() }
            }
        }
    }

    /// The validation ended: the deadline's thread ends without expiring.
    func end() {
        ended.withLockBroadcasting { $0 = true }
    }
}
