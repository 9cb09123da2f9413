// The subscribers behind observe, tracking and streams (internal).
// Architecture: ARCHITECTURE.md, "Observation and delivery".

// MARK: - ValueSubscriber

/// Delivers the value of an expression after each change of what it reads, newest last: a value is
/// accepted only when it is newer than the last one accepted, and accepted values are delivered one at a
/// time, in the order they were accepted.
///
/// Writers racing on what it reads each evaluate the expression on their own thread; the first to
/// accept a value becomes the subscriber's deliverer and keeps delivering the newest accepted value
/// until none is pending. A writer that accepts while another thread delivers leaves its value to that
/// thread (the newest pending value replaces an older one that was not delivered yet), so handlers run
/// outside every lock, never concurrently, never with an older value after a newer one, and the final
/// value always arrives.
@usableFromInline
final class ValueSubscriber<Value: Sendable>: Subscriber {
    @usableFromInline
    let evaluate: @Sendable () -> Value?
    @usableFromInline
    let handler: @Sendable (Value) -> Void
    private let onEnd: @Sendable () -> Void
    @usableFromInline
    let state: Locked<State>
    /// ``changedNow()`` as compiled where the subscription was made, specialized for `Value` (nil: the
    /// generic one). `changed()` is called through the `Subscriber` protocol, from code that knows
    /// nothing of `Value`: without this, every notification would look up generic metadata.
    private let specializedChange: (@Sendable (ValueSubscriber<Value>) -> Void)?

    @usableFromInline
    struct State {
        /// The version of the last value accepted.
        @usableFromInline
        var accepted: UInt64
        /// What it read, and the identity of what that was (kept alive, so that identities stay unique).
        @usableFromInline
        var sources: SubscriptionSources
        var tokens: [ObservationToken] = []
        @usableFromInline
        var ended = false
        /// The newest accepted value not delivered yet.
        @usableFromInline
        var pending: Value?
        /// Whether a thread is delivering: it delivers `pending` before it stops.
        @usableFromInline
        var delivering = false
        /// The value last accepted (or read when subscribing), kept when it reads a context: a new box
        /// there may hold the same value (an equal value written again, an override equal to what was
        /// inherited), which is not a change to deliver.
        @usableFromInline
        var acceptedValue: Value?
    }

    init(
        evaluate: @escaping @Sendable () -> Value?,
        handler: @escaping @Sendable (Value) -> Void,
        onEnd: @escaping @Sendable () -> Void,
        read accesses: [any TrackedAccess],
        initial: Value?,
        specializedChange: (@Sendable (ValueSubscriber<Value>) -> Void)?
    ) {
        self.evaluate = evaluate
        self.handler = handler
        self.onEnd = onEnd
        self.specializedChange = specializedChange
        let sources = SubscriptionSources(accesses)
        var state = State(accepted: sources.totalVersion, sources: sources)
        if sources.comparesValues { state.acceptedValue = initial }
        self.state = Locked.make(state)
    }

    func attach(_ tokens: [ObservationToken]) {
        let ended = state.withLock { state in
            if !state.ended { state.tokens = tokens }
            return state.ended
        }
        if ended { for token in tokens { token.cancel() } }
    }

    func changed() {
        if let specializedChange { specializedChange(self) } else { changedNow() }
    }

    /// Re-evaluates after a change of what it reads and delivers the value, newest last.
    @inlinable
    func changedNow() {
        guard let sources = state.withLock({ $0.ended ? nil : $0.sources }) else { return }
        // Re-evaluated without recording: what it reads was fixed when the subscription was made. The
        // sources' versions are read before and after, so that the accepted version matches the value.
        // What a context source sees is compared by identity (its version also moves with changes
        // elsewhere in its tree, or behind an override): read inside the same versions as the value, so
        // that a change landing in between cannot pair the older value with the newer identity, which
        // that change's own notification would then take for delivered.
        var value: Value?
        var version: UInt64
        var refreshed: SubscriptionSources?
        repeat {
            let before = sources.currentVersion
            value = evaluate()
            refreshed = sources.readsContext ? sources.refreshed() : nil
            version = sources.currentVersion
            if before == version { break }
        } while value != nil
        guard let value else { return end() }
        let deliverer = state.withLock { state -> Bool in
            guard !state.ended, version > state.accepted else { return false }
            if let refreshed {
                guard refreshed.identity != state.sources.identity else { return false }
                state.sources = refreshed
                // Another box, the same value: nothing changed for this subscriber.
                if refreshed.comparesValues {
                    if let accepted = state.acceptedValue, isSameValue(accepted, value) {
                        state.accepted = version
                        return false
                    }
                    state.acceptedValue = value
                }
            }
            state.accepted = version
            state.pending = value
            if state.delivering { return false }
            state.delivering = true
            return true
        }
        if deliverer { deliverPending() }
    }

    /// Delivers the pending value until none is left; only the thread that set `delivering` runs it.
    @inlinable
    func deliverPending() {
        while true {
            let next = state.withLock { state -> Value? in
                guard !state.ended, let pending = state.pending else {
                    state.delivering = false
                    return nil
                }
                state.pending = nil
                return pending
            }
            guard let next else { return }
            handler(next)
        }
    }

    @usableFromInline
    func end() {
        let tokens = state.withLock { state -> [ObservationToken]? in
            if state.ended { return nil }
            state.ended = true
            defer { state.tokens = [] }
            return state.tokens
        }
        guard let tokens else { return }
        for token in tokens { token.cancel() }
        onEnd()
    }
}

// MARK: - SubscriptionSources

/// What a ``ValueSubscriber`` read, and its identity: replaced as a whole when a context source is read
/// anew. Not generic, so that a subscriber's specialized code reaches it without knowing its accesses.
@usableFromInline
final class SubscriptionSources: Sendable {
    let read: [any TrackedAccess]
    @usableFromInline
    let identity: [UInt]
    /// Whether a context is among the sources (its version moves with changes elsewhere in its tree).
    @usableFromInline
    let readsContext: Bool
    /// Whether every source's new identity may hold the same value (see
    /// ``TrackedAccess/identityMayHoldSameValue``): a value equal to the one accepted is then no change.
    @usableFromInline
    let comparesValues: Bool

    init(_ read: [any TrackedAccess]) {
        self.read = read
        self.identity = read.identity
        self.readsContext = read.contains(where: \.isContext)
        self.comparesValues = read.allSatisfy(\.identityMayHoldSameValue)
    }

    var totalVersion: UInt64 { read.totalVersion }

    /// The sum of the sources' versions now.
    @usableFromInline
    var currentVersion: UInt64 { read.currentVersion }

    /// The sources read anew (a context source's identity follows what it sees now).
    @usableFromInline
    func refreshed() -> SubscriptionSources {
        SubscriptionSources(read.map { $0.refreshed() })
    }
}

// MARK: - OneShotSubscriber

/// Calls its action once, on the first change of anything it watches, then unsubscribes.
final class OneShotSubscriber: Subscriber {
    private let action: @Sendable () -> Void
    private let state = Locked<(fired: Bool, tokens: [ObservationToken])>.make((false, []))

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    func attach(_ tokens: [ObservationToken]) {
        let fired = state.withLock { state in
            if !state.fired { state.tokens = tokens }
            return state.fired
        }
        if fired { for token in tokens { token.cancel() } }
    }

    func changed() {
        guard let tokens = fire() else { return }
        for token in tokens { token.cancel() }
        action()
    }

    func end() {
        guard let tokens = fire() else { return }
        for token in tokens { token.cancel() }
    }

    /// Marks the subscriber fired; returns its tokens the first time only.
    private func fire() -> [ObservationToken]? {
        state.withLock { state in
            if state.fired { return nil }
            state.fired = true
            defer { state.tokens = [] }
            return state.tokens
        }
    }
}

// MARK: - Subscribing to what an expression reads

extension Array where Element == any TrackedAccess {
    var totalVersion: UInt64 { reduce(0) { $0 &+ $1.version } }
    var currentVersion: UInt64 { reduce(0) { $0 &+ $1.currentVersion } }
    var identity: [UInt] { flatMap(\.identity) }

    /// Subscribes `subscriber` to everything read; returns the tokens and whether anything already
    /// changed since it was read.
    func subscribe(_ subscriber: any Subscriber) -> (tokens: [ObservationToken], changedSinceRead: Bool) {
        var tokens: [ObservationToken] = []
        var changed = false
        for access in self {
            let (token, changedSinceRead) = access.subscribe(subscriber)
            tokens.append(token)
            changed = changed || changedSinceRead
        }
        return (tokens, changed)
    }
}

/// Subscribes `handler` to the value of `evaluate`, re-evaluated after each change of what it reads.
/// Returns the current value (nil when the target is gone) and the token.
/// `specializedChange` is `{ $0.changedNow() }` written where `Value` is known (an inlinable caller),
/// so that notifications run code specialized for it.
@usableFromInline
func subscribeToValue<Value: Sendable>(
    of evaluate: @escaping @Sendable () -> Value?,
    handler: @escaping @Sendable (Value) -> Void,
    onEnd: @escaping @Sendable () -> Void = {},
    specializedChange: (@Sendable (ValueSubscriber<Value>) -> Void)? = nil
) -> (initial: Value?, token: ObservationToken) {
    let (initial, accesses) = ObservationRecorder.record(evaluate)
    let subscriber = ValueSubscriber(
        evaluate: evaluate,
        handler: handler,
        onEnd: onEnd,
        read: accesses,
        initial: initial,
        specializedChange: specializedChange
    )
    let (tokens, changedSinceRead) = accesses.subscribe(subscriber)
    subscriber.attach(tokens)
    if changedSinceRead { subscriber.changed() }
    return (initial, ObservationToken { subscriber.end() })
}

/// A stream of the value of `evaluate`: the current value first, then the value after each change,
/// keeping only the newest when the consumer is slow. It finishes when the target is gone or the
/// consuming task ends.
@usableFromInline
func streamOfValue<Value: Sendable>(of evaluate: @escaping @Sendable () -> Value?) -> AsyncStream<Value> {
    AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
        // A change found while subscribing is delivered before `subscribeToValue` returns the first
        // value: it waits here, so that the stream gives the first value, then the newer one, never the
        // first value last. Values are yielded under the lock, in the order they were taken.
        let order = Locked<(started: Bool, waiting: Value?)>.make((false, nil))
        let (initial, token) = subscribeToValue(
            of: evaluate,
            handler: { value in
                order.withLock { order in
                    if order.started { continuation.yield(value) } else { order.waiting = value }
                }
            },
            onEnd: { continuation.finish() }
        )
        if let initial {
            order.withLock { order in
                continuation.yield(initial)
                order.started = true
                if let waiting = order.waiting { continuation.yield(waiting) }
                order.waiting = nil
            }
            continuation.onTermination = { _ in token.cancel() }
        } else {
            token.cancel()
            continuation.finish()
        }
    }
}
