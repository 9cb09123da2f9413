// How a tracked preference read is recorded and re-checked after a change in the subtree (internal).
// Architecture: ARCHITECTURE.md, "Members and preferences".

// MARK: - PreferenceAccess

/// A read of a preference reduced over a subtree, as recorded for tracking. What it saw is the trace of
/// the subtree: each context visited, the version of its member list and the box of its contribution.
/// Any member added, removed or ended, and any contribution changed, changes the trace.
struct PreferenceAccess: TrackedAccess {
    weak var context: Context?
    /// The preference's entry identity, under which its changes are announced.
    let preference: UInt
    let trace: PreferenceTrace
    let version: UInt64
    /// Traces the same preference again.
    let tracer: any PreferenceTracing

    init<Key: PreferenceKey>(reading key: Key.Type, from context: Context) {
        let tracer = PreferenceTracer<Key>()
        self.init(
            context: context,
            preference: StorageID(preference: key).raw,
            trace: tracer.trace(context),
            version: context.preferenceVersion,
            tracer: tracer
        )
    }

    private init(
        context: Context,
        preference: UInt,
        trace: PreferenceTrace,
        version: UInt64,
        tracer: any PreferenceTracing
    ) {
        self.context = context
        self.preference = preference
        self.trace = trace
        self.version = version
        self.tracer = tracer
    }

    func subscribe(_ subscriber: any Subscriber) -> (token: ObservationToken, changedSinceRead: Bool) {
        guard let context else { return (ObservationToken {}, false) }
        context.isObserved.store(true, ordering: .relaxed)
        let token = context.tree.observers.add(
            subscriber,
            to: [preference, Membership.source],
            owner: ObjectIdentifier(context)
        )
        return (token, !isCurrent)
    }

    var identity: [UInt] { trace.identity }
    var currentVersion: UInt64 { context?.preferenceVersion ?? version }
    var isContext: Bool { true }
    var identityMayHoldSameValue: Bool { false }

    func refreshed() -> any TrackedAccess {
        guard let context else { return self }
        return PreferenceAccess(
            context: context,
            preference: preference,
            trace: tracer.trace(context),
            version: context.preferenceVersion,
            tracer: tracer
        )
    }

    var isCurrent: Bool {
        guard let context else { return true }
        return tracer.trace(context).identity == trace.identity
    }
}

// MARK: - PreferenceTracer

/// Traces one preference key; a type rather than a closure, so that no metatype is captured.
protocol PreferenceTracing: Sendable {
    func trace(_ context: Context) -> PreferenceTrace
}

struct PreferenceTracer<Key: PreferenceKey>: PreferenceTracing {
    func trace(_ context: Context) -> PreferenceTrace { PreferenceTrace(of: Key.self, over: context) }
}

// MARK: - PreferenceTrace

/// What a reduction over a subtree visited, kept alive so that the addresses compared stay unique.
struct PreferenceTrace: Sendable {
    /// For each context visited: its identity, its member list's version, its contribution's box (0 for
    /// none).
    let identity: [UInt]
    let boxes: [any ContextBox]

    init<Key: PreferenceKey>(of key: Key.Type, over root: Context) {
        let id = StorageID(preference: key)
        var identity: [UInt] = []
        var boxes: [any ContextBox] = []
        root.forEachInSubtree { context, own in
            identity.append(UInt(bitPattern: ObjectIdentifier(context)))
            identity.append(UInt(truncatingIfNeeded: context.membershipIfMade?.version ?? 0))
            if let box = own.box(id) {
                identity.append(address(of: box))
                boxes.append(box)
            } else {
                identity.append(0)
            }
        }
        self.identity = identity
        self.boxes = boxes
    }
}

// MARK: - Versions

extension Context {
    /// Moves on every change a preference read could see: an update anywhere in the tree, or a change
    /// of membership. Both counters only grow, so their sum does too.
    var preferenceVersion: UInt64 {
        tree.generation.load(ordering: .sequentiallyConsistent)
            &+ tree.membershipVersion.load(ordering: .sequentiallyConsistent)
    }
}
