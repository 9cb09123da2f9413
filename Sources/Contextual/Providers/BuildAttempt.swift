// One build in flight, which other resolvers of the same object wait for (internal).
// Architecture: ARCHITECTURE.md, "Providers: boxes, build cells, scope stores and resolution frames".

// MARK: - BuildAttempt

/// One run of a provider's factory, which other resolvers of the same provider wait for: synchronously
/// (a condition variable) or asynchronously (continuations). It ends once, with success or the error
/// that every waiter of this attempt receives; a later resolve makes a new attempt. The first resolver
/// that has to wait makes it (see ``BuildCell/nextStep(frame:)``): a build nobody waits for has none.
///
/// It is its own ``ConditionLocked`` state: the outcome and the tasks waiting for it.
///
/// `@unchecked Sendable`: it owns its lock (as a ``ConditionLocked``), which guards its only mutable
/// state; `builder` is a constant.
@usableFromInline
final class BuildAttempt: ConditionLocked<BuildAttemptState>, @unchecked Sendable {
    /// The frame of the build, for cycle detection across tasks.
    let builder: ResolutionFrame
    var label: String { builder.label }

    init(builder: ResolutionFrame) {
        self.builder = builder
        super.init(BuildAttemptState())
    }

    /// How a wait for the attempt ended.
    enum WaitResult {
        /// The attempt ended, with its error if it failed.
        case finished(ContextError?)
        /// The wait gave up at its limit; the attempt still runs.
        case timedOut
        /// The waiting task was cancelled; the attempt still runs.
        case cancelled
    }

    /// Ends the attempt and wakes every waiter, outside the lock.
    @usableFromInline
    func finish(_ error: ContextError?) {
        let resumed = withLockBroadcasting { state in
            state.outcome = .some(error)
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in resumed { waiter.resume(returning: .finished(error)) }
    }

    /// Blocks the calling thread until the attempt ends, at most `limit`.
    func wait(atMost limit: Duration) -> WaitResult {
        wait(until: { $0.outcome.map(WaitResult.finished) }, atMost: limit) ?? .timedOut
    }

    /// Suspends until the attempt ends, at most `limit`; a cancelled task stops waiting at once.
    func waitAsync(atMost limit: Duration) async -> WaitResult {
        let id = withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { self?.stopWaiting(id, with: .timedOut) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WaitResult, Never>) in
                let outcome = withLock { state -> WaitResult? in
                    if let outcome = state.outcome { return .finished(outcome) }
                    if state.stopped.remove(id) != nil { return .cancelled }
                    state.waiters[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
        } onCancel: {
            stopWaiting(id, with: .cancelled)
        }
    }

    /// How many tasks are suspended waiting for the attempt (for tests: a waiter that is waiting).
    var suspendedWaiterCount: Int { withLock { $0.waiters.count } }

    /// Resumes the waiter `id` with `result`, if it still waits; marks it stopped if it has not started.
    private func stopWaiting(_ id: UInt64, with result: WaitResult) {
        let waiter = withLock { state -> CheckedContinuation<WaitResult, Never>? in
            if state.outcome != nil { return nil }
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.stopped.insert(id)
                return nil
            }
            return waiter
        }
        waiter?.resume(returning: result)
    }
}

// MARK: - BuildAttemptState

/// What a ``BuildAttempt`` guards with its lock.
@usableFromInline
struct BuildAttemptState {
    /// nil while running; then `.some(nil)` for success or `.some(error)`.
    var outcome: ContextError?? = nil
    /// The tasks waiting, by an identity of their wait.
    var waiters: [UInt64: CheckedContinuation<BuildAttempt.WaitResult, Never>] = [:]
    var nextWaiter: UInt64 = 0
    /// Waits stopped (cancelled, timed out) before they suspended.
    var stopped: Set<UInt64> = []
}
