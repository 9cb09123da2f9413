// What all the contexts derived from one root share: their generation, read domain and observers.
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
    /// The subscribers to context entries anywhere in the tree, by entry identity.
    let observers = ObservationRegistry()
    /// Moves on every change of membership anywhere in the tree (a member added, removed or ended), for
    /// the version of a preference read.
    let membershipVersion = Atomic<UInt64>(0)
    /// The tree's `BuildInstruments` (resolution counters, boot reports), made on first use: builds check
    /// that it is unset with one load, so that a tree nobody instruments pays nothing else.
    let instrumentsStorage = LazyReference()

    init() {}
}
