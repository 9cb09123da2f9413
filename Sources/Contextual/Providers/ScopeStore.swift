// What a scope owns: the objects it built, in order, for shutdown (internal).
// Architecture: ARCHITECTURE.md, "Providers: boxes, build cells, scope stores and resolution frames".

import Synchronization

// MARK: - ScopeStore

/// What one context owns as a scope: the cells of the scoped objects built for it, the objects to shut
/// down when it ends (those it built as a scope or as the registrar of singletons), and whether it ended.
/// Made on first use, so a context that builds nothing pays nothing: one buffer (its state and its lock,
/// which its scoped objects' cells share), kept by the context, and taken from the thread's spare when it
/// has one (the buffer of a context that ended on it, emptied; see ``keepAsSpare(_:)``). The buffer keeps
/// the cell of the first scoped object built with it, emptied, for the next scope's object of the same
/// provider (``State/spareCell``): a request that builds one scoped object allocates neither a store nor
/// a cell. Whether the scope ended is the context's own flag (``Context/isEnded``), read without the lock
/// on the resolve path.
///
/// `@unchecked Sendable`: a view of the context's store, whose state is only touched under its lock, and
/// of the context (which is `Sendable`).
@usableFromInline
struct ScopeStore: @unchecked Sendable {
    private let state: Locked<State>
    /// The context this is the store of.
    private let context: Context

    /// The store of `context`, whose state and lock are `state`.
    init(_ state: Locked<State>, of context: Context) {
        self.state = state
        self.context = context
    }

    @usableFromInline
    struct State {
        /// By provider identity: the provider (kept, so that its identity is not reused) and its cell.
        var cells = Cells()
        /// The objects built here, in order of creation, with their providers (for their labels): the
        /// object is kept only if it is to be shut down.
        var built = InlineList<BuiltObject>()
        /// The builds this scope owns that are running (a scoped object, a singleton it registered), by
        /// their providers, unretained: a provider is alive while it builds (the build holds it), and its
        /// entry goes before the build returns.
        var running = InlineList<Unmanaged<AnyObject>>()
        /// Shutdowns waiting for the running builds to end.
        var drained: [CheckedContinuation<Void, Never>] = []
        /// Set once the shutdown took the objects to shut down: what is built later is shut down by
        /// its builder.
        var closed = false
        /// The emptied cell of the last scope that used this store (its buffer is reused, see
        /// ``ScopeStore/keepAsSpare(_:)``), for the first scoped object of the same provider built here:
        /// a scope per request then allocates no cell.
        var spareCell: SpareCell?
    }

    /// An emptied cell kept for reuse, with the identity of the provider it was made for.
    @usableFromInline
    struct SpareCell {
        /// The identity of the provider the cell was made for (which may be gone: a cell is reused only
        /// for an object of its own type, see ``ScopeStore/cell(for:in:of:reusing:makingIfNone:)``).
        let providerID: ObjectIdentifier
        /// The cell, emptied: no build runs in it and it keeps no object.
        let cell: AnyBuildCell
    }

    /// The cell of `provider` in the scope `context`, whose store's buffer is `buffer`, or nil when the
    /// scope ended. Static, with the buffer and the context lent by the caller (see
    /// ``Context/scopeCell(for:thread:)``): a resolve reaches the cell without a reference count on either.
    @inlinable
    static func cell<Value>(
        for provider: ProviderBox<Value>,
        in buffer: LockedBuffer<State>,
        of context: Context
    ) -> BuildCell<Value>? {
        guard
            let cell = cell(
                for: provider,
                in: buffer,
                of: context,
                reusing: { type(of: $0) == BuildCell<Value>.self },
                makingIfNone: { BuildCell<Value>(guardedBy: $0) }
            )
        else { return nil }
        // Safe: the cell was stored under this provider's identity, which fixes `Value`.
        return unsafeDowncast(cell, to: BuildCell<Value>.self)
    }

    /// The cell of `provider`: its own if it has one, else the spare cell (``State/spareCell``) if that
    /// was made for it and `isReusable` says it is of the right type (a provider's identity may have been
    /// reused by another since), else one made by `make`; nil when the scope ended. Not generic (its
    /// caller casts), so that no metadata is looked up for the cell's type on every request.
    @usableFromInline
    static func cell(
        for provider: AnyObject,
        in buffer: LockedBuffer<State>,
        of context: Context,
        reusing isReusable: (AnyBuildCell) -> Bool,
        makingIfNone make: (LockedBuffer<State>) -> AnyBuildCell
    ) -> AnyBuildCell? {
        Locked(buffer: buffer).withLock { state in
            if context.scopeEnded.load(ordering: .acquiring) { return nil }
            if let cell = state.cells[provider] { return cell }
            let cell: AnyBuildCell
            if let spare = state.spareCell, spare.providerID == ObjectIdentifier(provider), isReusable(spare.cell) {
                state.spareCell = nil
                cell = spare.cell
            } else {
                // The cell shares this store's lock (it never takes it while this store holds it).
                cell = make(buffer)
            }
            state.cells.insert(cell, for: provider)
            return cell
        }
    }

    // MARK: - Builds

    /// Where a build this scope owns ended up.
    @usableFromInline
    enum Outcome {
        /// Recorded; the scope is live.
        case recorded
        /// The scope ended while it was built: recorded, and shut down by the shutdown in progress.
        case ended
        /// The scope's shutdown already finished: the builder must shut the object down.
        case closed
    }

    /// Starts a build of `provider` this scope will own; false when the scope ended, so that it builds
    /// nothing more. Allocates nothing while one build at a time runs (the first resolve of a singleton
    /// is on a benchmarked path).
    @usableFromInline
    func beginBuild(of provider: any AnyProviderBox) -> Bool {
        state.withLock { $0.beginBuild(of: provider, scopeEnded: context.scopeEnded) }
    }

    /// Ends a build begun with ``beginBuild(of:)``: records the object it built, if it built one (false
    /// when the build failed or the object is not the provider's own), to be shut down with the scope
    /// when it adopts ``ScopeShutdown`` (`shutdown`, the object as one), and wakes a shutdown waiting
    /// for it.
    @usableFromInline @discardableResult
    func endBuild(built: Bool, shutdown: (any ScopeShutdown)?, by provider: any AnyProviderBox) -> Outcome {
        let (outcome, resumed) = state.withLock {
            $0.endBuild(built: built, shutdown: shutdown, by: provider, scopeEnded: context.scopeEnded)
        }
        for shutdown in resumed { shutdown.resume() }
        return outcome
    }

    /// Records an object a transient provider built for this scope, to be shut down with it (only
    /// objects that adopt ``ScopeShutdown`` are kept).
    func recordTransient(_ object: any ScopeShutdown, by provider: any AnyProviderBox) -> Outcome {
        state.withLock { state in
            if state.closed { return .closed }
            state.built.append(BuiltObject(builder: .provider(provider), object: object))
            return context.scopeEnded.load(ordering: .acquiring) ? .ended : .recorded
        }
    }

    /// Takes over what `other` built (a throwaway scope's objects), to shut it down with this scope's
    /// own; `other` ends with nothing left to shut down.
    func adopt(_ other: ScopeStore) {
        guard other.beginEnd() else { return }
        let objects = other.close()
        if objects.isEmpty { return }
        let late = state.withLock { state -> InlineList<(builder: Builder, object: any ScopeShutdown)> in
            if state.closed { return objects }
            for (builder, object) in objects { state.built.append(BuiltObject(builder: builder, object: object)) }
            return InlineList()
        }
        // This scope's shutdown is already over: shut them down now, in reverse order.
        context.shutDownLate(late.map { ($0.builder.label, $0.object) })
    }

    // MARK: - Ending

    /// Marks the scope ended, so that it starts no build; false when it had ended already.
    func beginEnd() -> Bool {
        !context.scopeEnded.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Whether builds this scope owns are running: a shutdown that finds none has nothing to wait for.
    var hasRunningBuilds: Bool { state.withLock { !$0.running.isEmpty } }

    /// Whether a shutdown waits for this scope's running builds (``waitForBuilds(atMost:)``): for tests
    /// that must end a build only once the shutdown waits for it.
    var isWaitingForBuilds: Bool { state.withLock { !$0.drained.isEmpty } }

    /// Waits for the builds this scope owns to end, at most `limit`; returns the labels of those still
    /// running then (empty when all ended), and how long the oldest had run.
    func waitForBuilds(atMost limit: Duration) async -> [String] {
        // The common case, nothing running: no task and no timer (a timer, even cancelled, is kept by
        // the runtime until its deadline: one per request would hold memory for the limit's length).
        if state.withLock({ $0.running.isEmpty }) { return [] }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let done = self.state.withLock { state -> Bool in
                        if state.running.isEmpty { return true }
                        state.drained.append(continuation)
                        return false
                    }
                    if done { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            // The other task: a sleep ends at once when cancelled; a waiting continuation is resumed below.
            group.cancelAll()
            let waiting = self.state.withLock { state in
                defer { state.drained = [] }
                return state.drained
            }
            for continuation in waiting { continuation.resume() }
        }
        return state.withLock { state in
            // Safe: an entry's provider is alive while its build runs (see `running`).
            state.running.map { ($0.takeUnretainedValue() as? any AnyProviderBox)?.label ?? "?" }
        }
    }

    /// Closes the scope once its builds ended (or the wait gave up): forgets its cells (keeping the first,
    /// emptied, as the store's spare when nothing else holds it) and returns the
    /// objects to shut down, in order of creation, with what built them (whose label is made only for a
    /// message: making one costs more than the rest of a request's shutdown). An inline list: a request's
    /// scope mostly shuts down one object, and an array of it would be an allocation per request.
    func close() -> InlineList<(builder: Builder, object: any ScopeShutdown)> {
        let (objects, cells, kept) = state.withLock { state in
            state.closed = true
            // The objects are moved out to the caller, which shuts them down; what built them stays (for
            // ``builtLabels``). Moved, not copied: none is released under the lock, and a request's
            // shutdown retains and releases nothing it does not have to.
            var objects = InlineList<(builder: Builder, object: any ScopeShutdown)>()
            state.built.updateEach { entry in
                if let object = entry.object.take() { objects.append((entry.builder, object)) }
            }
            let kept = state.keepFirstCellAsSpare()
            return (objects, state.cells.take(), kept)
        }
        // Released here, outside the lock: objects' deinits may run user code.
        _ = consume cells
        if kept != 0 { ReferenceWord.release(kept) }
        return objects
    }

    /// The labels of the objects built here, in order of creation.
    var builtLabels: [String] { state.withLock { $0.built.map(\.builder) }.map(\.label) }

    /// The cell of the first scoped object built here, for a test that holds it as a resolver would (tests
    /// only).
    var cellHeldForTesting: AnyBuildCell? {
        state.withLock { $0.cells.firstCell }
    }

    /// The identities of the cells of the scoped objects built here, and of the spare cell if there is
    /// one: what tests of reuse compare (tests only).
    var cellIdentities: (cells: [ObjectIdentifier], spare: ObjectIdentifier?) {
        state.withLock { state in
            (state.cells.identities, state.spareCell.map { ObjectIdentifier($0.cell) })
        }
    }
}

// MARK: - Builds, under the lock

extension ScopeStore.State {
    /// Starts a build of `provider` the scope owns (see ``ScopeStore/beginBuild(of:)``), unless the scope
    /// ended (`scopeEnded`, its context's flag): false then. The caller holds the store's lock.
    mutating func beginBuild(of provider: any AnyProviderBox, scopeEnded: borrowing Atomic<Bool>) -> Bool {
        if scopeEnded.load(ordering: .acquiring) { return false }
        running.append(Unmanaged.passUnretained(provider))
        return true
    }

    /// Ends a build begun with ``beginBuild(of:scopeEnded:)`` (see ``ScopeStore/endBuild(built:shutdown:by:)``);
    /// returns where the object ended up and the shutdowns to resume (outside the lock) when no build
    /// runs any more. The caller holds the store's lock.
    mutating func endBuild(
        built: Bool,
        shutdown: (any ScopeShutdown)?,
        by provider: any AnyProviderBox,
        scopeEnded: borrowing Atomic<Bool>
    ) -> (ScopeStore.Outcome, [CheckedContinuation<Void, Never>]) {
        let entry = Unmanaged.passUnretained(provider as AnyObject).toOpaque()
        running.removeFirst { $0.toOpaque() == entry }
        var outcome = ScopeStore.Outcome.recorded
        if built {
            if closed {
                outcome = .closed
            } else {
                // A singleton that needs no shutdown is listed by its label alone: its provider may be
                // removed by an update long before its registrar ends, and goes then, with its object.
                let builder: ScopeStore.Builder =
                    shutdown == nil && provider.lifetime == .singleton
                    ? .singleton(provider.entryType) : .provider(provider)
                // Room for a few once a scope builds a second object: one allocation instead of three
                // up to five objects.
                if self.built.holdsOne { self.built.reserveCapacity(5) }
                self.built.append(ScopeStore.BuiltObject(builder: builder, object: shutdown))
                if scopeEnded.load(ordering: .acquiring) { outcome = .ended }
            }
        }
        guard running.isEmpty else { return (outcome, []) }
        defer { drained = [] }
        return (outcome, drained)
    }
}

// MARK: - Reusing cells

extension ScopeStore.State {
    /// Keeps the cell of the first scoped object built here as ``spareCell``, emptied, when nothing but
    /// this store holds it and no build runs in it; returns the word of the object it kept (0 if none),
    /// which the caller releases outside the lock. The caller holds the store's lock, which the cell
    /// shares.
    mutating func keepFirstCellAsSpare() -> UInt {
        // Unique: no resolver holds it (one that did could still read it); a later resolve of this scope
        // cannot get it (the scope ended, or the store is being emptied for the next). Checked in place:
        // a copy would be a second reference. Otherwise it is released with the rest, outside the lock.
        guard cells.firstCellIsUnique(), let entry = cells.takeFirst() else { return 0 }
        guard let kept = entry.cell.emptyForReuse() else {
            cells.insert(entry.cell, for: entry.provider)
            return 0
        }
        spareCell = ScopeStore.SpareCell(providerID: ObjectIdentifier(entry.provider), cell: entry.cell)
        return kept
    }
}

// MARK: - Reusing buffers

extension ScopeStore {
    /// A buffer for a new store: the running thread's spare (in `thread`, its block) if it has one, else
    /// a new one.
    @usableFromInline
    static func makeBuffer(in thread: ThreadSlot.Block) -> LockedBuffer<State> {
        ThreadSlot.spareScopeStoreBuffer.takeSpare(as: LockedBuffer<State>.self, in: thread)
            ?? LockedBuffer.make(State())
    }

    /// Empties the buffer of the store of a context that ended, releasing what it held (cells, objects
    /// never shut down), and keeps it as the running thread's spare if nothing else holds it and the
    /// thread has none.
    static func keepAsSpare(_ buffer: consuming LockedBuffer<State>) {
        var buffer = buffer
        guard isKnownUniquelyReferenced(&buffer) else { return }
        // Taken out under the lock (the last writer may have been another thread), released outside it:
        // an object's deinit is user code.
        // What it held is moved out field by field (a copy of the whole state goes through its value
        // witnesses): no build runs and no shutdown waits once its context ended, so only the cells, the
        // objects and the closed flag are left to clear.
        let (cells, built, kept) = Locked(buffer: buffer).withLock {
            state -> (Cells, InlineList<BuiltObject>, UInt) in
            state.closed = false
            // Nothing runs and nothing waits: a build and a shutdown each hold the context.
            assert(state.running.isEmpty && state.drained.isEmpty, "a store emptied while in use")
            // As at a scope's end (`close()`), spelled out: a shared function returning the cells and the
            // kept word costs this path (a scope per request) about 35 instructions.
            let kept = state.keepFirstCellAsSpare()
            return (state.cells.take(), state.built.take(), kept)
        }
        _ = consume cells
        _ = consume built
        if kept != 0 { ReferenceWord.release(kept) }
        ThreadSlot.spareScopeStoreBuffer.keepSpare(consume buffer)
    }
}

// MARK: - Builder

extension ScopeStore {
    /// What built an object a scope shuts down: one of its providers, or, for an object taken over from a
    /// throwaway scope, the label it had there, or, for a singleton that needs no shutdown, its type.
    enum Builder {
        /// A provider (an ``AnyProviderBox``), kept as a plain reference: a scope is made and ended per
        /// request, and releasing a reference costs less than destroying an existential.
        case provider(AnyObject)
        case adopted(String)
        /// A singleton that needs no shutdown, by the type it is provided under: its label is made only
        /// when asked for.
        case singleton(Any.Type)

        var label: String {
            switch self {
            case .provider(let provider):
                (provider as? any AnyProviderBox)?.label ?? TypeMetadata.name(of: type(of: provider))
            case .adopted(let label): label
            case .singleton(let type): "\(TypeMetadata.name(of: type)) (\(Lifetime.singleton))"
            }
        }
    }

    /// An object built here, with what built it; the object is kept only if it is to be shut down.
    struct BuiltObject {
        var builder: Builder
        var object: (any ScopeShutdown)?
    }
}

// MARK: - Cells

extension ScopeStore {
    /// The cells of a scope's scoped objects, by provider identity: the first inline (most scopes build
    /// one or two scoped objects: nothing to allocate), the next ones in a list searched by identity,
    /// which costs less than hashing while it is short, and past ``Cells/searchedLength`` of them all but
    /// the first in a dictionary (a scope with thousands of objects stays linear).
    struct Cells {
        private var first: (provider: AnyObject, cell: AnyBuildCell)?
        /// The cells added after the first: nothing until a second object, then the list, then the
        /// dictionary, in one field (a store is moved and emptied once per request, and each field of it
        /// costs there).
        private var more = More.none

        /// Where the cells after the first are kept.
        private enum More {
            case none
            /// In order of addition, at most ``Cells/searchedLength``.
            case list([(provider: AnyObject, cell: AnyBuildCell)])
            /// By the provider's identity.
            case indexed([ObjectIdentifier: (provider: AnyObject, cell: AnyBuildCell)])
        }

        /// The longest list searched entry by entry: 16 comparisons of a reference cost about what
        /// hashing one does.
        static var searchedLength: Int { 16 }

        /// The cell of `provider`, if it has one here.
        ///
        /// - Complexity: O(1) for the first cell; O(*n*) up to ``searchedLength`` more, O(1) past that.
        subscript(provider: AnyObject) -> (AnyBuildCell)? {
            if let first, first.provider === provider { return first.cell }
            if case .none = more { return nil }
            return laterCell(of: provider)
        }

        /// The cell of `provider` among those after the first.
        @inline(never)
        private func laterCell(of provider: AnyObject) -> AnyBuildCell? {
            switch more {
            case .none:
                return nil
            case .list(let list):
                for index in list.indices where list[index].provider === provider { return list[index].cell }
                return nil
            case .indexed(let cells):
                return cells[ObjectIdentifier(provider)]?.cell
            }
        }

        /// Adds the cell of `provider`, which has none here.
        ///
        /// - Complexity: amortized O(1).
        @inline(__always)
        mutating func insert(_ cell: AnyBuildCell, for provider: AnyObject) {
            if first == nil {
                first = (provider, cell)
            } else {
                insertLater(cell, for: provider)
            }
        }

        /// Adds the cell of `provider` after the first.
        @inline(never)
        private mutating func insertLater(_ cell: AnyBuildCell, for provider: AnyObject) {
            // Each payload is taken out before it is changed, so that it is not copied (`more` would
            // share it).
            switch more {
            case .none:
                // Room for a few: a list grown one element at a time allocates at 1, 2, 4 and 8.
                var list: [(provider: AnyObject, cell: AnyBuildCell)] = []
                list.reserveCapacity(4)
                list.append((provider, cell))
                more = .list(list)
            case .list(var list):
                more = .none
                if list.count < Self.searchedLength {
                    list.append((provider, cell))
                    more = .list(list)
                } else {
                    // The list outgrows a search: every cell by its provider's identity, once.
                    var cells = [ObjectIdentifier: (provider: AnyObject, cell: AnyBuildCell)](
                        minimumCapacity: 2 * Self.searchedLength
                    )
                    for entry in list { cells[ObjectIdentifier(entry.provider)] = entry }
                    cells[ObjectIdentifier(provider)] = (provider, cell)
                    more = .indexed(cells)
                }
            case .indexed(var cells):
                more = .none
                cells[ObjectIdentifier(provider)] = (provider, cell)
                more = .indexed(cells)
            }
        }

        /// The identities of the cells, the first added first.
        var identities: [ObjectIdentifier] {
            let others: [(provider: AnyObject, cell: AnyBuildCell)] =
                switch more {
                case .none: []
                case .list(let list): list
                case .indexed(let cells): Array(cells.values)
                }
            return (first.map { [ObjectIdentifier($0.cell)] } ?? []) + others.map { ObjectIdentifier($0.cell) }
        }

        /// Whether nothing but this table holds the cell added first (false when there is none).
        mutating func firstCellIsUnique() -> Bool {
            guard first != nil else { return false }
            return isKnownUniquelyReferenced(&first!.cell)
        }

        /// The cell added first, if any.
        var firstCell: AnyBuildCell? { first?.cell }

        /// The first cell added, moved out (the others stay).
        mutating func takeFirst() -> (provider: AnyObject, cell: AnyBuildCell)? {
            first.take()
        }

        /// The cells, moved out: none is left here.
        mutating func take() -> Cells {
            var taken = Cells()
            swap(&taken, &self)
            return taken
        }
    }
}
