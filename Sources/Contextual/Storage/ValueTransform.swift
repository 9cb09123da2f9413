// A transform of an inherited value (`child(transforming:)`), applied again whenever what flows from above changes.
// Architecture: ARCHITECTURE.md, "Contexts, states and generations".

import Synchronization

// MARK: - ValueTransform

/// What `child(transforming:)` keeps: how to compute the child's own entries from what it inherits.
/// Like SwiftUI's `transformEnvironment`, it applies to whatever flows from above: the child's state is
/// rebuilt after a change in its tree (``Context/refresh()``), and the transform runs again on the new
/// inherited value, outside every lock.
final class ValueTransform: Sendable {
    /// Computes the child's own entries (the transformed value, under its key) from the inherited ones.
    private let apply: @Sendable (ContextValues) -> FrozenTable
    /// False once an ``Context/update(_:)`` of the child set one of the entries itself: the value it
    /// set wins from then on.
    private let active = Atomic<Bool>(true)
    /// The identities of the entries it sets, as of its last application.
    private let setIDs = Locked<[StorageID]>.make([])

    init(apply: @escaping @Sendable (ContextValues) -> FrozenTable) {
        self.apply = apply
    }

    /// Whether it still applies.
    var isActive: Bool { active.load(ordering: .acquiring) }

    /// The own entries it gives over `inherited`, read by `origin` (for providers found there).
    func entries(over inherited: FrozenTable, origin: Context?) -> FrozenTable {
        let entries = apply(ContextValues(own: .empty, inherited: inherited, origin: origin))
        let ids = entries.entries.map(\.id)
        setIDs.withLock { $0 = ids }
        return entries
    }

    /// The identities of the entries it sets.
    var ids: [StorageID] { setIDs.withLock { $0 } }

    /// Stops it: the context's own value replaced the transformed one.
    func deactivate() {
        active.store(false, ordering: .releasing)
    }
}

// MARK: - ValueTransforms

/// The transforms of one context, set when it is made (in a ``LazyReference``, as few contexts have any).
final class ValueTransforms: Sendable {
    let all: [ValueTransform]

    init(_ all: [ValueTransform]) {
        self.all = all
    }
}
