// Where a provider keeps what it built, and how one build at a time is run (internal).
// Architecture: ARCHITECTURE.md, "Providers: boxes, build cells, scope stores and resolution frames".

import Synchronization

// MARK: - BuildCell

/// The once-only slot of a built object: a singleton's (in its provider) or a scoped object's (in its
/// scope).
///
/// Reading a built object is one atomic load. The first resolver builds; resolvers that come while it
/// builds wait for that build only (a slow factory never blocks other providers); a failed build caches
/// nothing, hands its error to the resolvers that waited for it, and the next resolve builds again.
///
/// `@unchecked Sendable`, as its base: it owns its lock, or shares its scope's, which orders every access
/// to its build in flight.
@usableFromInline
final class BuildCell<Value: Sendable>: AnyBuildCell, @unchecked Sendable {
    /// The lock of a singleton's cell (one per registered provider).
    private let ownLock: Locked<Void>?
    /// The lock of the scope whose store holds this cell: a scoped object's cell is made per request,
    /// and shares its scope's lock rather than making its own. Unowned: the store holds the cell, and
    /// every resolver that holds the cell holds the scope's context, which holds the store.
    nonisolated(unsafe) unowned(unsafe) private let scopeLock: LockedBuffer<ScopeStore.State>?
    /// Whether this is a scoped object's cell, whose build is guarded by its scope's lock (see
    /// ``nextStep(frame:beginningBuildOf:in:)``). Set once, when the cell is made; stored, because testing
    /// ``scopeLock`` loads an unowned reference, which retains and releases it.
    @usableFromInline
    let isScoped: Bool

    /// A cell with a lock of its own (a singleton's).
    @usableFromInline
    override init() {
        ownLock = Locked.make(())
        scopeLock = nil
        isScoped = false
        super.init()
    }

    /// A cell guarded by the lock of the scope store `scopeLock` belongs to (a scoped object's).
    @usableFromInline
    init(guardedBy scopeLock: LockedBuffer<ScopeStore.State>) {
        ownLock = nil
        self.scopeLock = scopeLock
        isScoped = true
        super.init()
    }

    /// Runs `body` under the cell's lock, which guards ``running``: its scope's for a scoped object's
    /// cell, else its own.
    private func withCellLock<Result>(_ body: () -> Result) -> Result {
        // Safe: a scoped cell has its scope's lock, any other its own.
        if isScoped { return Locked(buffer: scopeLock.unsafelyUnwrapped).withLock { _ in body() } }
        return ownLock.unsafelyUnwrapped.withLock { body() }
    }

    /// The object, if it was built.
    @inlinable
    var built: Value? {
        let bits = builtBits.load(ordering: .acquiring)
        return bits == 0 ? nil : keptValue(bits, as: Value.self)
    }

    /// What the resolver running in `frame` does: return the built object, build it (and end the build
    /// with ``store(_:)`` or ``fail(_:)``), or wait for the build in flight. The first waiter of a build
    /// makes the attempt they all wait on: a build nobody waits for allocates nothing to wait on.
    @usableFromInline
    func nextStep(frame: ResolutionFrame) -> BuildStep {
        // Safe: a build that nothing refuses always has a step.
        withCellLock { step(frame: frame, starting: { true }) }.unsafelyUnwrapped
    }

    /// The step of the resolver running in `frame`, as ``nextStep(frame:)`` says; when it is to build,
    /// only if `start` agrees (nil otherwise, and nothing changes). The caller holds the cell's lock.
    @inline(__always)
    private func step(frame: ResolutionFrame, starting start: () -> Bool) -> BuildStep? {
        if builtBits.load(ordering: .acquiring) != 0 { return .built }
        switch running {
        case .none:
            guard start() else { return nil }
            running = .building(frame)
            return .build
        case .building(let builder):
            builder.markWaitedFor()
            let attempt = BuildAttempt(builder: builder)
            running = .waited(attempt)
            return .wait(attempt)
        case .waited(let attempt):
            return .wait(attempt)
        }
    }

    /// Ends the build in flight (none runs any more) and returns the attempt its waiters wait on, if
    /// any, for the caller to finish outside the lock. The caller holds the cell's lock.
    @inline(__always)
    private func endRunning() -> BuildAttempt? {
        defer { running = .none }
        if case .waited(let attempt) = running { return attempt }
        return nil
    }

    /// Ends the build in flight with `value`, the object.
    @inlinable
    func store(_ value: Value) {
        // Only the builder stores, once: no other writer can race it.
        builtBits.store(keptWord(value), ordering: .releasing)
        endBuild(nil)
    }

    /// Ends the build in flight with `error`, which it returns.
    @usableFromInline
    func fail(_ error: ContextError) -> ContextError {
        endBuild(error)
        return error
    }

    /// Ends the build in flight: none is running any more, and its waiters, if any, wake with `error`
    /// (nil when it built).
    @usableFromInline
    func endBuild(_ error: ContextError?) {
        withCellLock { endRunning() }?.finish(error)
    }

    /// How many tasks are suspended waiting for the build in flight (for tests: a waiter that is
    /// waiting). The attempt is taken under the cell's lock and asked outside it, as ``endBuild(_:)``
    /// finishes it.
    var suspendedWaiterCount: Int {
        let attempt = withCellLock { () -> BuildAttempt? in
            if case .waited(let attempt) = running { return attempt }
            return nil
        }
        return attempt?.suspendedWaiterCount ?? 0
    }

    // MARK: - A scoped object's build

    /// For a scoped object's cell: ``nextStep(frame:)``, and when the step is to build, `provider`'s build
    /// begun in `scope`'s store (``ScopeStore/beginBuild(of:)``), under the scope's lock once. Nil when the
    /// scope ended: nothing more is built for it.
    @usableFromInline
    func nextStep(
        frame: ResolutionFrame,
        beginningBuildOf provider: any AnyProviderBox,
        in scope: Context
    ) -> BuildStep? {
        // Safe: a scoped cell has its scope's lock.
        Locked(buffer: scopeLock.unsafelyUnwrapped).withLock { state in
            step(frame: frame, starting: { state.beginBuild(of: provider, scopeEnded: scope.scopeEnded) })
        }
    }

    /// For a scoped object's cell: ends the build begun with ``nextStep(frame:beginningBuildOf:in:)``, and
    /// `provider`'s build in `scope`'s store (``ScopeStore/endBuild(built:shutdown:by:)``), under the
    /// scope's lock once. Keeps `value` (the object built, or nil when the build failed) only when the
    /// scope recorded it. Returns where the object ended up and the attempt its waiters wait on, which
    /// the caller finishes (with the error it throws, if any).
    @inlinable
    func endScopedBuild(
        keeping value: Value?,
        shutdown: (any ScopeShutdown)?,
        ownedBy provider: any AnyProviderBox,
        owned: Bool,
        in scope: Context
    ) -> (outcome: ScopeStore.Outcome, attempt: BuildAttempt?) {
        endScopedBuild(
            keeping: value.map(keptWord) ?? 0,
            shutdown: shutdown,
            ownedBy: provider,
            owned: owned,
            in: scope
        )
    }

    /// ``endScopedBuild(keeping:shutdown:ownedBy:owned:in:)`` with the object as its kept word (0 for none):
    /// not specialized for `Value`.
    @usableFromInline
    func endScopedBuild(
        keeping word: UInt,
        shutdown: (any ScopeShutdown)?,
        ownedBy provider: any AnyProviderBox,
        owned: Bool,
        in scope: Context
    ) -> (outcome: ScopeStore.Outcome, attempt: BuildAttempt?) {
        // Safe: a scoped cell has its scope's lock.
        let (outcome, attempt, resumed) = Locked(buffer: scopeLock.unsafelyUnwrapped).withLock {
            state -> (ScopeStore.Outcome, BuildAttempt?, [CheckedContinuation<Void, Never>]) in
            let (outcome, resumed) = state.endBuild(
                built: word != 0 && owned,
                shutdown: shutdown,
                by: provider,
                scopeEnded: scope.scopeEnded
            )
            // Kept only if the scope took it: a build that failed, or outlived its scope, caches nothing.
            if word != 0 && outcome == .recorded { builtBits.store(word, ordering: .releasing) }
            return (outcome, endRunning(), resumed)
        }
        // Not kept: released here, outside the lock (the caller holds its own copy of the object).
        if word != 0 && outcome != .recorded { ReferenceWord.release(word) }
        for shutdown in resumed { shutdown.resume() }
        return (outcome, attempt)
    }

    // MARK: - Building

    /// The object, built by `build` (running in `frame`) if this is the first resolve; waits for a
    /// build in flight, at most the `asker`'s ``ContextValues/buildWaitLimit``.
    @inlinable
    func value(
        frame: ResolutionFrame,
        asker: Context,
        build: () throws(ContextError) -> Value
    ) throws(ContextError) -> Value {
        while true {
            switch nextStep(frame: frame) {
            case .built:
                if let value = built { return value }
            case .build:
                do {
                    let value = try build()
                    store(value)
                    return value
                } catch {
                    throw fail(error)
                }
            case .wait(let attempt):
                try waitForBuild(attempt, asker: asker)
            }
        }
    }

    /// Blocks until `attempt` (another resolver's build) ends, at most the `asker`'s
    /// ``ContextValues/buildWaitLimit``; throws what a waiter of it must throw (see `settle`).
    @usableFromInline
    func waitForBuild(_ attempt: BuildAttempt, asker: Context) throws(ContextError) {
        try ResolutionFrame.block(on: attempt)
        let limit = asker[\.buildWaitLimit]
        let result = attempt.wait(atMost: limit)
        ResolutionFrame.unblock()
        try settle(result, of: attempt, limit: limit, asker: asker)
    }

    /// The object, built by the asynchronous `build` if this is the first resolve; suspends (without
    /// blocking a thread) while a build is in flight, at most the `asker`'s
    /// ``ContextValues/buildWaitLimit``, and stops waiting at once when its task is cancelled.
    ///
    /// A build whose own task was cancelled ends its attempt as cancelled: the waiters that were not
    /// cancelled build again (one of them does, the others wait for it) instead of failing, and nothing
    /// is cached.
    func value(
        frame: ResolutionFrame,
        asker: Context,
        build: () async throws(ContextError) -> Value
    ) async throws(ContextError) -> Value {
        while true {
            switch nextStep(frame: frame) {
            case .built:
                if let value = built { return value }
            case .build:
                do {
                    let value = try await build()
                    store(value)
                    return value
                } catch {
                    throw fail(error)
                }
            case .wait(let attempt):
                try ResolutionFrame.block(on: attempt)
                let limit = asker[\.buildWaitLimit]
                let result = await attempt.waitAsync(atMost: limit)
                ResolutionFrame.unblock()
                if case .cancelled = result { throw ContextError.cancelled(attempt.label, asker: asker) }
                try settle(result, of: attempt, limit: limit, asker: asker)
            }
        }
    }

    /// What a waiter does once its wait for `attempt` ended: nothing (the attempt built, or its builder
    /// was cancelled: the caller's loop resolves again), or throw.
    private func settle(
        _ result: BuildAttempt.WaitResult,
        of attempt: BuildAttempt,
        limit: Duration,
        asker: Context
    ) throws(ContextError) {
        switch result {
        case .finished(let error):
            // A build cancelled by its own task's cancellation is no failure of the object.
            if let error, error.code != .cancelled { throw error }
        case .timedOut:
            throw ContextError.buildTimedOut(
                attempt.label,
                waited: limit,
                builderPath: attempt.builder.path.reversed().map(\.label),
                asker: asker
            )
        case .cancelled:
            throw ContextError.cancelled(attempt.label, asker: asker)
        }
    }
}

// MARK: - BuildStep

/// What a resolver of a ``BuildCell`` does next. Not nested in the generic cell, whose nested types'
/// metadata would be looked up at run time on every build.
@usableFromInline
enum BuildStep {
    case built
    case build
    case wait(BuildAttempt)
}

// MARK: - RunningBuild

/// The build of a ``BuildCell`` in flight: none, one nobody waits for (its builder's frame, for the
/// attempt a first waiter makes), or one that others wait for.
@usableFromInline
enum RunningBuild {
    case none
    case building(ResolutionFrame)
    case waited(BuildAttempt)
}
