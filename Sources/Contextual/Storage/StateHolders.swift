// `StateHolders`: the contexts of a tree that hold a state of their own, for an update to release what it
// replaced at once.
// Architecture: ARCHITECTURE.md, "State holders".

// MARK: - StateHolders

/// The contexts of one tree, other than its root, that have published a state (weakly): a state holds
/// what its context inherited when it was brought up to date, so after an update the states below the
/// context updated still hold the values it replaced. ``ContextTree/bringUpToDate(holdingReplaced:in:except:)``
/// brings those contexts up to date at once, so that a value replaced goes with the update, not at each
/// such context's next read (which may never come).
///
/// Invariants: a context is listed once, from its first published state on (see `Context.publish(_:)`);
/// entries whose context went are dropped when the list grows past twice the live ones it had after the
/// last sweep, so that it stays within twice the number of live holders.
final class StateHolders: Sendable {
    private struct State {
        var holders: [WeakContext] = []
        /// The number of entries after the last sweep of dead ones.
        var sweptCount = 0
        /// Whether a thread is sweeping a copy of `holders`.
        var sweeping = false
    }

    private let state = Locked<State>.make(State())

    /// Lists `context`, which published its first state.
    ///
    /// - Complexity: Amortized O(1).
    func add(_ context: Context) {
        let toSweep = state.withLock { state -> [WeakContext]? in
            state.holders.append(WeakContext(context: context))
            guard state.holders.count > max(8, 2 * state.sweptCount), !state.sweeping else { return nil }
            state.sweeping = true
            return state.holders
        }
        guard let toSweep else { return }
        // Outside the lock: asking a weak reference makes a strong one for a moment, whose release may be
        // the context's last, and run its deinit (user code) here.
        let live = toSweep.filter { $0.context != nil }
        state.withLock { state in
            // Entries listed while this thread swept stay.
            state.holders = live + state.holders.dropFirst(toSweep.count)
            state.sweptCount = state.holders.count
            state.sweeping = false
        }
    }

    /// The holder at `index` (nil when it went), and whether there is one: read one at a time, so that
    /// no lock is held while it is brought up to date (which may publish a state, and list a context).
    func holder(at index: Int) -> (context: Context?, exists: Bool) {
        state.withLock { state in
            index < state.holders.count ? (state.holders[index].context, true) : (nil, false)
        }
    }
}

// MARK: - Bringing holders up to date

extension ContextTree {
    /// Brings up to date, now, every listed context but `updated` whose state inherited a box that the
    /// update of `updated` replaced or removed: one of `before`'s under an identity of `changed` (or,
    /// when `changed` is nil, any stale state). What it replaced is then released by this update.
    ///
    /// - Complexity: O(*h*) for the *h* contexts listed, plus bringing each such context up to date.
    func bringUpToDate(holdingReplaced changed: ChangedIDs?, in before: borrowing FrozenTable, except updated: Context)
    {
        guard let holders = stateHolders else { return }
        var index = 0
        while true {
            let (holder, exists) = holders.holder(at: index)
            guard exists else { return }
            index += 1
            guard let context = holder, context !== updated else { continue }
            if context.inheritsReplaced(changed, in: before) { context.refresh() }
        }
    }
}

extension Context {
    /// Whether this context's published state is stale and inherited one of `before`'s boxes under an
    /// identity of `changed` (any stale state, when `changed` is nil).
    func inheritsReplaced(_ changed: ChangedIDs?, in before: borrowing FrozenTable) -> Bool {
        let ticket = tree.readers.enter()
        defer { tree.readers.leave(ticket) }
        let bits = stateBits.load(ordering: .sequentiallyConsistent)
        if bits == 0 { return false }
        let generation = tree.generation.load(ordering: .sequentiallyConsistent)
        return ReferenceWord.withInstance(bits, as: ContextState.self) { state in
            if state.generation == generation { return false }
            guard let changed else { return true }
            var index = 0
            while index < changed.count {
                let id = StorageID(raw: changed[index])
                index += 1
                let old = before.rawBox(id)
                if old != 0 && state.values.inherited.rawBox(id) == old { return true }
            }
            return false
        }
    }
}
