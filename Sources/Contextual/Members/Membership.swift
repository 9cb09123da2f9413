// A host's list of members, and a member's link back to its host (internal).
// Architecture: ARCHITECTURE.md, "Members and preferences".

import Synchronization

// MARK: - Membership

/// One context's side of membership: the members registered with it, in registration order, and
/// whether it is itself a member of its parent. Made on first use, so that contexts that take no part in
/// membership (request contexts, typically) pay one empty word.
final class Membership: Sendable {
    /// The source under which membership changes are announced in a tree's observation registry: one
    /// per tree, as any change may move a preference read anywhere above it.
    static let source = UInt(bitPattern: ObjectIdentifier(Membership.self))

    private let state = Locked.make(State())
    /// Set once this context is registered with its parent; read by its deinit and its shutdown.
    let isMember = Atomic<Bool>(false)
    /// Set once this context is registered as an owned member: its host holds it, so it holds its host
    /// (its parent) weakly instead of retaining it, which would be a cycle that kept both alive.
    let holdsHostWeakly = Atomic<Bool>(false)
    /// The host of an owned member, and the tree it keeps alive in case the host was its root.
    private let weakHost = Locked<(host: WeakContext, tree: ContextTree?)>.make((WeakContext(), nil))

    /// Invariants: `entries` holds the registered members in registration order, with `nil` where one
    /// was removed; `positions` maps each registered member's identity to its index in `entries`; the
    /// holes number at most the members plus 8 (a removal past that compacts the list). Adding and
    /// removing a member is then amortized O(1), and the list stays within about twice the members.
    struct State {
        var entries: [Entry?] = []
        var positions: [ObjectIdentifier: Int] = [:]
        /// Moves on every addition and removal, so that a read of this list can tell it changed.
        var version: UInt64 = 0

        /// Drops the holes, keeping the registration order.
        ///
        /// - Complexity: O(*n*) for the *n* entries and holes.
        mutating func compact() {
            entries.removeAll { $0 == nil }
            for (index, entry) in entries.enumerated() { if let entry { positions[entry.id] = index } }
        }
    }

    struct Entry {
        let id: ObjectIdentifier
        let ownership: MemberOwnership
        var weak: WeakContext
        /// The member itself when it is owned; nil when the host holds it weakly.
        let owned: Context?
    }

    // MARK: - Changing

    /// Registers `member`; false when it is already registered.
    ///
    /// - Complexity: Amortized O(1).
    func add(_ member: Context, ownership: MemberOwnership) -> Bool {
        state.withLock { state in
            let id = ObjectIdentifier(member)
            if state.positions[id] != nil { return false }
            state.positions[id] = state.entries.count
            state.entries.append(
                Entry(
                    id: id,
                    ownership: ownership,
                    weak: WeakContext(context: member),
                    owned: ownership == .owned ? member : nil
                )
            )
            state.version += 1
            return true
        }
    }

    /// Unregisters the member with identity `id`; false when it was not registered. Returns the owned
    /// reference, if any, for the caller to release outside the lock.
    ///
    /// - Complexity: Amortized O(1).
    func remove(_ id: ObjectIdentifier) -> (removed: Bool, owned: Context?) {
        state.withLock { state in
            guard let index = state.positions.removeValue(forKey: id) else { return (false, nil) }
            let entry = state.entries[index]
            state.entries[index] = nil
            if state.entries.count > 2 * state.positions.count + 8 { state.compact() }
            state.version += 1
            return (true, entry?.owned)
        }
    }

    // MARK: - Reading

    /// The members alive and not ended, in registration order, held strongly for the caller.
    var live: [(context: Context, ownership: MemberOwnership)] {
        let alive = state.withLock { state in
            state.entries.compactMap { entry in
                entry.flatMap { entry in (entry.owned ?? entry.weak.context).map { ($0, entry.ownership) } }
            }
        }
        // Filtered outside the lock: a reference dropped here may be a member's last, and its deinit
        // takes this lock to leave.
        return alive.filter { !$0.0.isEnded }
    }

    var version: UInt64 { state.withLock { $0.version } }

    // MARK: - An owned member's host

    /// The host of an owned member, while it lives.
    var host: Context? { weakHost.withLock { $0.host.context } }

    /// Makes this member hold `host` weakly (and the tree strongly); true the first time, when the caller
    /// must then drop the member's strong reference to its parent.
    func holdHostWeakly(_ host: Context) -> Bool {
        weakHost.withLock { $0 = (WeakContext(context: host), host.tree) }
        // Sequentially consistent: see `Context.holdsParentWeakly`.
        return !holdsHostWeakly.exchange(true, ordering: .sequentiallyConsistent)
    }
}
