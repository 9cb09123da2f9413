// One build in flight, which other resolvers of the same object wait for (internal).

// MARK: - BuildAttempt

/// One run of a provider's factory, which other resolvers of the same provider wait for: synchronously
/// (a condition variable) or asynchronously (continuations). It ends once, with success or the error
/// that every waiter of this attempt receives; a later resolve makes a new attempt.
///
/// It is its own ``ConditionLocked`` state: the outcome and the tasks waiting for it.
///
/// `@unchecked Sendable`: it owns its lock (as a ``ConditionLocked``), which guards its only mutable
/// state; `builder` is a constant.
final class BuildAttempt: ConditionLocked<BuildAttemptState>, @unchecked Sendable {
    /// The frame of the build, for cycle detection across tasks.
    let builder: ResolutionFrame
    var label: String { builder.label }

    init(builder: ResolutionFrame) {
        self.builder = builder
        super.init(BuildAttemptState())
    }

    /// Ends the attempt and wakes every waiter, outside the lock.
    func finish(_ error: ContextError?) {
        let resumed = withLockBroadcasting { state in
            state.outcome = .some(error)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in resumed { waiter.resume(returning: error) }
    }

    /// Blocks the calling thread until the attempt ends; returns its error, if it failed.
    func wait() -> ContextError? {
        wait { $0.outcome }
    }

    /// Suspends until the attempt ends; returns its error, if it failed.
    func waitAsync() async -> ContextError? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ContextError?, Never>) in
            let outcome = withLock { state -> ContextError?? in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }
}

// MARK: - BuildAttemptState

/// What a ``BuildAttempt`` guards with its lock.
struct BuildAttemptState {
    /// nil while running; then `.some(nil)` for success or `.some(error)`.
    var outcome: ContextError?? = nil
    var waiters: [CheckedContinuation<ContextError?, Never>] = []
}
