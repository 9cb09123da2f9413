// The state machine behind a context's reads and updates: which values a read sees, and how a new
// state is published, refreshed and released.
// Architecture: ARCHITECTURE.md, "Contexts, states and generations".
import Synchronization

// MARK: - Context state

extension Context {
    /// The tree this context belongs to.
    @inlinable
    var tree: ContextTree {
        // Safe: the root holds the tree for as long as any context of the tree lives (see above).
        treeReference.takeUnretainedValue()
    }

    // MARK: - State

    var writeLock: Locked<Int> {
        writeLockStorage.lock(makingWith: 0)
    }

    /// Runs `body` holding ``writeLock``, reached without a reference count once made (the context holds
    /// it for its whole life).
    @inline(__always)
    func withWriteLock<Result>(_ body: (inout Int) throws -> Result) rethrows -> Result {
        let bits = writeLockStorage.bits.load(ordering: .acquiring)
        if bits == 0 { return try writeLock.withLock(body) }
        return try ReferenceWord.withInstance(bits, as: LockedBuffer<Int>.self) {
            try Locked(buffer: $0).withLock(body)
        }
    }

    /// Whether a read may use `initial` without a read section: no state was published and nothing in
    /// the tree changed since this context was made.
    @inlinable
    var readsInitial: Bool {
        stateBits.load(ordering: .acquiring) == 0
            && initialGeneration == tree.generation.load(ordering: .acquiring)
    }

    /// Runs `body` on this context's current values: `initial` when nothing changed, else the published
    /// state, inside a read of the tree's domain. `body` must not keep what it is given.
    @inlinable
    func withValues<Result>(_ body: (ContextValues) -> Result) -> Result {
        if readsInitial {
            if !chainHasProviders { return body(initial) }
            // A view of `initial` with this context as its reader, lent without a copy.
            return ContextValues.withView(of: initial, readBy: self) { body($0) }
        }
        return withPublishedValues(body)
    }

    @inlinable
    func withPublishedValues<Result>(_ body: (ContextValues) -> Result) -> Result {
        if let read = beginPublishedRead() {
            defer { tree.readers.leave(read.ticket) }
            return ContextValues.withValues(at: read.values) { body($0) }
        }
        // A provider may build for this context, which the values read must then name: a copy.
        return body(currentValues())
    }

    /// This context's current values, as it reads them, in a copy that keeps what it points to alive.
    @usableFromInline
    func currentValues() -> ContextValues {
        readable(snapshot().values)
    }

    /// `values` as this context reads them: told the reader when a provider may need it.
    func readable(_ values: ContextValues) -> ContextValues {
        values.hasProviders ? values.read(by: self) : values
    }

    /// Runs `body` on a snapshot of this context's values (as ``readable(_:)`` gives them); returns the
    /// generation they belong to and whether they hold providers. For `@Injected`'s reads after a change,
    /// which keep what they read for that generation unless a provider may build anew.
    @usableFromInline
    func readSnapshot(_ body: (ContextValues) -> Void) -> (generation: UInt64, hasProviders: Bool) {
        let snapshot = snapshot()
        body(readable(snapshot.values))
        return (snapshot.generation, snapshot.values.hasProviders)
    }

    /// Runs `body`, which reads this context's initial values, and says whether every entry it read is
    /// stable there (see ``ContextValues/isStable(_:)``): what it read may then be kept.
    @usableFromInline
    func readInitialRecordingStability(_ body: () -> Void) -> Bool {
        ObservationRecorder.recordKeys(body).allSatisfy { initial.isStable($0.id) }
    }

    /// This context's values as they are now, brought up to date with its ancestors, with what keeps
    /// them alive; for everything but the hot read path.
    func snapshot() -> Snapshot {
        while true {
            let ticket = tree.readers.enter()
            let bits = stateBits.load(ordering: .sequentiallyConsistent)
            let generation = tree.generation.load(ordering: .sequentiallyConsistent)
            var snapshot: Snapshot?
            if bits == 0 {
                if initialGeneration == generation {
                    snapshot = Snapshot(bits: 0, values: initial, generation: generation, state: nil, owner: self)
                }
            } else {
                if ReferenceWord.withInstance(bits, as: ContextState.self, { $0.generation == generation }) {
                    // Retained inside the read, so the state cannot be released before the caller owns it.
                    let owned = ReferenceWord.instance(bits, as: ContextState.self)
                    snapshot = Snapshot(
                        bits: bits,
                        values: owned.values,
                        generation: generation,
                        state: owned,
                        owner: self
                    )
                }
            }
            tree.readers.leave(ticket)
            if let snapshot { return snapshot }
            refresh()
        }
    }

    /// This context's own and inherited tables as they are now, brought up to date with its ancestors,
    /// and the generation they belong to: what ``snapshot()`` gives, without the references that keep a
    /// whole snapshot (each table keeps its own entries). For ``update(_:)``.
    func currentTables() -> (own: FrozenTable, inherited: FrozenTable, generation: UInt64) {
        while true {
            let ticket = tree.readers.enter()
            let bits = stateBits.load(ordering: .sequentiallyConsistent)
            let generation = tree.generation.load(ordering: .sequentiallyConsistent)
            if bits == 0 {
                if initialGeneration == generation {
                    tree.readers.leave(ticket)
                    return (initial.own, initial.inherited, generation)
                }
            } else {
                // Copied inside the read section: the state cannot be released before the tables are.
                let tables = ReferenceWord.withInstance(bits, as: ContextState.self) {
                    state -> (own: FrozenTable, inherited: FrozenTable, generation: UInt64)? in
                    guard state.generation == generation else { return nil }
                    return (state.values.own, state.values.inherited, generation)
                }
                if let tables {
                    tree.readers.leave(ticket)
                    return tables
                }
            }
            tree.readers.leave(ticket)
            refresh()
        }
    }

    /// Everything `initial` holds in one table, for children; merged once.
    @usableFromInline
    var initialFlattenedTable: FrozenTable {
        // The tables passed in place: through `initial.flattened(cachedIn:)`, `initial` would be copied.
        FrozenTable.flattening(initial.own, over: initial.inherited, cachedIn: initialFlattened)
    }

    /// The transforms this context applies to what it inherits (empty for most contexts).
    var transforms: [ValueTransform] { transformsStorage.load(as: ValueTransforms.self)?.all ?? [] }

    /// Stops the transforms whose entries an update set itself (`own` differs from `before` there).
    func stopTransforms(overriddenIn own: FrozenTable, before: FrozenTable) {
        for transform in transforms where transform.isActive {
            if transform.ids.contains(where: { own.rawBox($0) != before.rawBox($0) }) { transform.deactivate() }
        }
    }

    /// Rebuilds this context's state against its parent's current values, after a change in the tree.
    func refresh() {
        let transforms = transforms.filter(\.isActive)
        if !transforms.isEmpty { return refresh(applying: transforms) }
        let retired = withWriteLock { _ -> ContextState? in
            let generation = tree.generation.load(ordering: .sequentiallyConsistent)
            let bits = stateBits.load(ordering: .sequentiallyConsistent)
            if bits == 0 {
                if initialGeneration == generation { return nil }
                return publishRefreshed(initial.own, initial.inherited, from: initialGeneration, to: generation)
            }
            // The current state stays while the lock is held: its values are read in place.
            return ReferenceWord.withInstance(bits, as: ContextState.self) { state -> ContextState? in
                if state.generation == generation { return nil }
                return publishRefreshed(
                    state.values.own,
                    state.values.inherited,
                    from: state.generation,
                    to: generation
                )
            }
        }
        if let retired { tree.readers.retire(retired) }
    }

    /// Publishes `own` over what this context inherits at generation `end`, which was `inherited` at
    /// generation `start`; returns the state replaced, as ``publish(_:)``. The caller holds `writeLock`.
    private func publishRefreshed(
        _ own: borrowing FrozenTable,
        _ inherited: borrowing FrozenTable,
        from start: UInt64,
        to end: UInt64
    ) -> ContextState? {
        // An owned member whose host is gone keeps what it inherited.
        let inheritedNow =
            patchedInherited(inherited, from: start, to: end) ?? parent?.snapshot().flattened ?? copy inherited
        return publish(ContextState(values: ContextValues(own: copy own, inherited: inheritedNow), generation: end))
    }

    /// `inherited`, what this context inherited at generation `start`, brought to generation `end` by
    /// replacing only the entries that the updates in between changed (the tree's ``ChangeLog``) with
    /// what this context's ancestors hold under them now: no merge of everything the ancestors hold, and
    /// no ancestor rebuilds its state. Nil when that cannot be told this way: the log does not know
    /// those generations, an ancestor transforms what it inherits, or a context on the way is an owned
    /// member (which may keep what it inherited from a host that is gone). The caller holds `writeLock`.
    ///
    /// - Complexity: O(*c* × *d*) for *c* entries changed (at most ``ChangedIDs/capacity``) and a chain
    ///   *d* contexts deep; replacing one entry of a larger table allocates nothing.
    func patchedInherited(_ inherited: borrowing FrozenTable, from start: UInt64, to end: UInt64) -> FrozenTable? {
        guard parentBits != 0, let changes = tree.changedIDs(after: start, through: end),
            !holdsParentWeakly
        else { return nil }
        var table = copy inherited
        // The ancestors' published own values are read in place, inside a read section.
        let ticket = tree.readers.enter()
        defer { tree.readers.leave(ticket) }
        var index = 0
        while index < changes.count {
            let id = StorageID(raw: changes[index])
            index += 1
            // Container values and preferences are not inherited.
            if id.isLocal { continue }
            guard let entry = ancestorsEntry(id) else { return nil }
            if let box = entry {
                if address(of: box) != table.rawBox(id) { table = table.setting(id, to: box) }
            } else {
                table = table.removing(id)
            }
        }
        // A box of an ancestor's earlier state, hidden under the entry replaced, goes with that state.
        table.releaseHidden(unlessKeptBy: initial.inherited)
        return table
    }

    /// The box of the nearest ancestor that sets `id` now (`.some(nil)` when none does); nil when an
    /// ancestor on the way transforms what it inherits or is an owned member. Called inside a read
    /// section of the tree's domain: the ancestors' published states are read in place.
    private func ancestorsEntry(_ id: StorageID) -> (any ContextBox)?? {
        // Each ancestor held strongly while it is read: a context may become an owned member meanwhile,
        // whose link to its host (its parent) is then weak.
        // A context that has a parent but reads none (an owned member whose host just went, after its
        // check below) keeps what it inherited: the caller rebuilds the general way.
        guard let first = parentInsideRead else { return parentBits == 0 ? .some(nil) : nil }
        var next: Context? = first
        while let ancestor = next {
            if ancestor.transformsStorage.bits.load(ordering: .acquiring) != 0 || ancestor.holdsParentWeakly {
                return nil
            }
            // The box looked up by address first: most ancestors do not set `id`.
            func lookUp(_ own: borrowing FrozenTable) -> (any ContextBox)? {
                own.rawBox(id) == 0 ? nil : own.box(id)
            }
            // Sequentially consistent, as the read section's entry before it (a store, then this load).
            let bits = ancestor.stateBits.load(ordering: .sequentiallyConsistent)
            let box =
                bits == 0
                ? lookUp(ancestor.initial.own)
                : ReferenceWord.withInstance(bits, as: ContextState.self) { lookUp($0.values.own) }
            if let box { return .some(box) }
            if ancestor.parentBits == 0 { return .some(nil) }
            // Nil here: the ancestor became an owned member whose host went since its check above.
            guard let above = ancestor.parentInsideRead else { return nil }
            next = above
        }
        return .some(nil)
    }

    /// ``refresh()`` for a context with transforms: the inherited values and the transformed entries are
    /// computed first, outside every lock (a transform is user code), then published unless a newer
    /// state was published meanwhile.
    private func refresh(applying transforms: [ValueTransform]) {
        let generation = tree.generation.load(ordering: .sequentiallyConsistent)
        let inherited = parent?.snapshot().flattened ?? inheritedWithoutParent()
        let origin = inherited.hasProviders || chainHasProviders ? self : nil
        let transformed = transforms.map { $0.entries(over: inherited, origin: origin) }
        let retired = withWriteLock { _ -> ContextState? in
            let bits = stateBits.load(ordering: .sequentiallyConsistent)
            let current =
                bits == 0
                ? (values: initial, generation: initialGeneration)
                : ReferenceWord.withInstance(bits, as: ContextState.self) { ($0.values, $0.generation) }
            if current.generation >= generation { return nil }
            var own = current.values.own
            // Only the transforms still active: an update that set one's entries may have published since
            // they were applied, with an older generation than this refresh's (see `update(_:)`).
            for (transform, entries) in zip(transforms, transformed) where transform.isActive {
                own = own.overlaid(with: entries)
            }
            return publish(ContextState(values: ContextValues(own: own, inherited: inherited), generation: generation))
        }
        if let retired { tree.readers.retire(retired) }
    }

    /// What this context inherits when it has no parent to read: nothing for a root, what it inherited
    /// last for an owned member whose host is gone.
    private func inheritedWithoutParent() -> FrozenTable {
        let bits = stateBits.load(ordering: .acquiring)
        if bits == 0 { return initial.inherited }
        return ReferenceWord.withInstance(bits, as: ContextState.self) { $0.values.inherited }
    }

    /// What identifies this context to the providers it registered, if it registered any.
    @inlinable
    var registrarLink: RegistrarLink? { registrarLinkStorage.load(as: RegistrarLink.self) }

    /// This context's registrar link, made now if it has none.
    func ownRegistrarLink() -> RegistrarLink {
        if let link = registrarLink { return link }
        return registrarLinkStorage.storeIfNil(RegistrarLink(name: name, depth: name == nil ? depth : 0))
    }

    /// Binds the providers registered in `own` to this context, their registrar.
    func bindProviders(in own: FrozenTable) {
        let link = ownRegistrarLink()
        for entry in own.entries {
            if let provider = entry.box as? any AnyProviderBox {
                provider.bind(to: link)
            } else if entry.box.addressTag != 0, let list = entry.box as? any AnyProviderList {
                // The ancestors' providers in the list are bound already: the first binding wins.
                for provider in list.ownProviders { provider.bind(to: link) }
            }
        }
    }

    /// Installs `state` and returns the published state it replaced (nil when it replaced `initial`,
    /// which lives as long as the context), with the +1 reference this context held. The caller holds
    /// `writeLock`.
    func publish(_ state: ContextState) -> ContextState? {
        let bits = ReferenceWord.retained(state)
        let old = stateBits.exchange(bits, ordering: .sequentiallyConsistent)
        if old == 0 {
            // Its state holds what it inherits: an update above it brings it up to date at once.
            if parentBits != 0 { tree.addStateHolder(self) }
            return nil
        }
        return ReferenceWord.takeRetained(old, as: ContextState.self)
    }

    // MARK: - Making a child

    /// Makes a child of this context, inheriting its current values, configured by `configure`.
    func makeChild(
        name: String?,
        isScope: Bool,
        transforms: [ValueTransform] = [],
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows -> Context {
        noteChildMade()
        let generation = tree.generation.load(ordering: .sequentiallyConsistent)
        var values = ContextValues(
            own: .empty,
            inherited: readsInitial ? initialFlattenedTable : snapshot().flattened,
            // Reads in `configure` build a provider's object for this context, when there is a provider
            // to build (one registered in `configure` itself is not bound yet, and says so when read).
            origin: chainHasProviders ? self : nil
        )
        try configure(&values)
        let child = Context(
            name: name,
            parent: self,
            tree: treeReference,
            treeOwner: nil,
            values: consume values,
            generation: generation,
            isScope: isScope
        )
        if !transforms.isEmpty { _ = child.transformsStorage.storeIfNil(ValueTransforms(transforms)) }
        return child
    }

    /// Records that this context has a child, before the child reads its values.
    ///
    /// Orderings: the store and the check before it are sequentially consistent, as is an update's load
    /// of the flag after it published. A child whose first values predate an update's publication then
    /// set (or saw set) the flag before in that single order, so the update sees it set and brings the
    /// child's state up to date; the check spares a store on every child made of a busy root (a request
    /// scope's parent), whose cache line the store would take from every other core.
    private func noteChildMade() {
        if !hasHadChildren.load(ordering: .sequentiallyConsistent) {
            hasHadChildren.store(true, ordering: .sequentiallyConsistent)
        }
    }

    // MARK: - Reading in place

    /// Enters a read of this context's published state (after a change in its tree), for a read that is
    /// not tracked and builds no provider: the values to read in place, inside a read section that the
    /// caller leaves with the ticket. Nil when the read needs a copy of the values instead.
    @usableFromInline
    func beginPublishedRead() -> PublishedRead? {
        while true {
            let ticket = tree.readers.enter()
            let bits = stateBits.load(ordering: .sequentiallyConsistent)
            let generation = tree.generation.load(ordering: .sequentiallyConsistent)
            if bits == 0 {
                // Reached only by a read that found the tree changed: `initial` is read through a copy.
                if initialGeneration == generation {
                    tree.readers.leave(ticket)
                    return nil
                }
            } else {
                // Alive until the read section is left: a retired state is released only after that.
                let values = ReferenceWord.withInstance(bits, as: ContextState.self) {
                    state -> UnsafePointer<ContextValues>? in
                    state.generation == generation ? state.valuesAddress : nil
                }
                if let values {
                    // A provider builds for the reading context, which a copy of the values must name.
                    if !values.pointee.hasProviders { return PublishedRead(values: values, ticket: ticket) }
                    tree.readers.leave(ticket)
                    return nil
                }
            }
            tree.readers.leave(ticket)
            refresh()
        }
    }

    // MARK: - Teardown

    /// Releases the +1 reference `bits` holds on a parent. When it is the parent's last, the parent's own
    /// parent is retained first, so that the parent's deinit only drops a shared reference: a chain of
    /// any depth is released in this loop, one context at a time, instead of one deinit inside another.
    static func releaseParent(_ bits: UInt) {
        var link = bits
        while link != 0 {
            var parent = ReferenceWord.takeRetained(link, as: Context.self)
            guard isKnownUniquelyReferenced(&parent), !parent.holdsParentWeakly else { return }
            link = parent.parentBits
            if link != 0 { ReferenceWord.retain(link) }
        }
    }
}

// MARK: - Snapshot

/// A context's values at one moment, with the references that keep them valid.
@usableFromInline
struct Snapshot {
    /// The state word they were read under (0 for the context's initial values).
    let bits: UInt
    let values: ContextValues
    let generation: UInt64
    /// The published state they belong to, or nil for the initial values.
    let state: ContextState?
    /// The context, which keeps its initial values alive.
    let owner: Context

    /// Everything these values hold in one table, for children.
    @usableFromInline
    var flattened: FrozenTable { state?.flattened ?? owner.initialFlattenedTable }
}

// MARK: - PublishedRead

/// A read of a published state in place: its values, valid until the read section is left with `ticket`.
@usableFromInline
struct PublishedRead {
    @usableFromInline
    let values: UnsafePointer<ContextValues>
    @usableFromInline
    let ticket: ReadDomain.Ticket

    /// The value at `keyPath` of the values read, applied in place (the values are not copied).
    @inlinable @inline(__always)
    subscript<Value>(keyPath: KeyPath<ContextValues, Value>) -> Value {
        ContextValues.withValues(at: values) { $0[keyPath: keyPath] }
    }
}
