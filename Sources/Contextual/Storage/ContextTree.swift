// What all the contexts derived from one root share: their generation, read domain and observers.
// Architecture: ARCHITECTURE.md, "Contexts, states and generations".
import Synchronization

// MARK: - ContextTree

/// What all the contexts derived from one root share: a generation counter that moves on every change
/// anywhere in the tree, and the reclamation domain of their states.
@usableFromInline
final class ContextTree: Sendable {
    @usableFromInline
    let generation = Atomic<UInt64>(0)
    @usableFromInline
    let readers = ReadDomain()
    /// The registry of ``observers``, made when something first subscribes: most trees (a request's)
    /// are never observed, and a registry costs two allocations to make and to free.
    private let observersStorage = LazyReference()
    /// Moves on every change of membership anywhere in the tree (a member added, removed or ended), for
    /// the version of a preference read.
    let membershipVersion = Atomic<UInt64>(0)
    /// The tree's `BuildInstruments` (resolution counters, boot reports), made on first use: builds check
    /// that it is unset with one load, so that a tree nobody instruments pays nothing else.
    let instrumentsStorage = LazyReference()
    /// What the last updates changed (a ``ChangeLog``), made by the tree's first update.
    private let changesStorage = LazyReference()
    /// The contexts that hold a state of their own (``StateHolders``), made when the first one does.
    private let stateHoldersStorage = LazyReference()

    init() {}

    /// The subscribers to context entries anywhere in the tree, by entry identity; made now if needed
    /// (to subscribe).
    var observers: ObservationRegistry {
        observersStorage.load(as: ObservationRegistry.self) ?? observersStorage.storeIfNil(ObservationRegistry())
    }

    /// Records in the change log (made now if needed) that the update of `generation` changed `ids`.
    func recordChange(_ ids: ChangedIDs, generation: UInt64) {
        // The log lives as long as the tree: used without a reference count.
        if changesStorage.withInstance(as: ChangeLog.self, { $0.record(ids, generation: generation) }) == nil {
            changesStorage.storeIfNil(ChangeLog()).record(ids, generation: generation)
        }
    }

    /// The entries changed by the updates of the generations after `start` through `end`, or nil when the
    /// change log cannot tell (see ``ChangeLog/changedIDs(after:through:)``).
    func changedIDs(after start: UInt64, through end: UInt64) -> ChangedIDs? {
        changesStorage.withInstance(as: ChangeLog.self) { $0.changedIDs(after: start, through: end) } ?? nil
    }

    /// Lists `context`, which published its first state (see ``StateHolders``).
    func addStateHolder(_ context: Context) {
        let holders = stateHoldersStorage.load(as: StateHolders.self) ?? stateHoldersStorage.storeIfNil(StateHolders())
        holders.add(context)
    }

    /// The contexts that hold a state of their own, if any ever did.
    var stateHolders: StateHolders? { stateHoldersStorage.load(as: StateHolders.self) }

    /// The subscribers' registry, if anything ever subscribed.
    var existingObservers: ObservationRegistry? {
        observersStorage.load(as: ObservationRegistry.self)
    }

    /// Tells the subscribers of `sources` that they changed, after their new values are stored. The
    /// fence pairs with the one a subscription makes after it is added (see ``ObservationRegistry``): a
    /// change either finds the registry and the subscriber, or the subscriber finds the change when it
    /// checks that what it read is still current. One fence serves the registry's check too.
    func observersDidChange(_ sources: some Sequence<UInt>) {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        existingObservers?.didChange(afterFence: sources)
    }

    /// ``observersDidChange(_:)`` for the sources `changes` computes, computed only when the tree has
    /// observers (after the same fence: a subscription made meanwhile finds the change itself).
    func observersDidChange(computing changes: () -> [UInt]) {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        guard let observers = existingObservers else { return }
        let sources = changes()
        if !sources.isEmpty { observers.didChange(afterFence: sources) }
    }
}
