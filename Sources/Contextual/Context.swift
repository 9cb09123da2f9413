// The `Context` class: its stored state, making roots and children, and replacing values with `update`.

import Synchronization

// MARK: - Context

/// A scope of values and objects, chained parent to child like SwiftUI's environment.
///
/// A child sees everything its parent holds unless it overrides a value; an override applies to that
/// context and its descendants only, never to its parent or its siblings.
///
/// ```swift
/// let app = Context(name: "app") {
///     $0.logger = Logger(label: "app")
///     $0.provide(Database(url: "postgres://localhost/app"))
/// }
/// let request = app.child(name: "request") { $0.requestID = "req-42" }
///
/// request[\.requestID]            // "req-42"
/// app[\.requestID]                // the key's default: the override stays below
/// request.resolve(Database.self)  // the app's database
/// ```
///
/// A context is `Sendable`: share it freely between tasks and threads. Reading a value takes no lock and
/// does not allocate, and its cost does not depend on how deep the context is. Values can be replaced
/// later with ``update(_:)``.
public final class Context: Sendable {
    /// The name shown in diagnostics, such as the message of a failed ``resolve(_:)->T``.
    ///
    /// ```swift
    /// Context(name: "app").name  // "app"
    /// ```
    public let name: String?

    /// The context this one was derived from, or `nil` for a root.
    ///
    /// ```swift
    /// app.child().parent === app  // true
    /// ```
    ///
    /// An owned member (``MemberOwnership/owned``) holds its host weakly, since the host holds it: if it
    /// outlives its host, its parent is `nil` and it keeps the values it inherited.
    public var parent: Context? {
        if parentBits == 0 { return nil }
        let ticket = tree.readers.enter()
        defer { tree.readers.leave(ticket) }
        return parentInsideRead
    }

    /// ``parent``, for a caller inside a read section of the tree's domain. A context that becomes an
    /// owned member hands its strong reference to its parent to the domain, which releases it once the
    /// reads that may have found it strong have left (see `register(_:ownership:)`): the reference taken
    /// here from `parentBits` is never taken from a parent already released.
    var parentInsideRead: Context? {
        if parentBits == 0 { return nil }
        if holdsParentWeakly { return membershipIfMade?.host }
        return ReferenceWord.instance(parentBits, as: Context.self)
    }

    /// Whether this context is an owned member, which holds its host (its parent) weakly.
    var holdsParentWeakly: Bool {
        // Sequentially consistent, as is `holdHostWeakly(_:)`'s exchange: a reader announces itself in
        // the read domain, then loads this flag; the registration sets it, then asks the domain for its
        // readers. Only a single order of both makes one of them see the other's write.
        membershipStorage.withInstance(as: Membership.self) {
            $0.holdsHostWeakly.load(ordering: .sequentiallyConsistent)
        } ?? false
    }

    /// The parent's address, retained (+1) by this context and released by its deinit, or 0 for a root.
    /// A word rather than a reference, so that the deinit releases a long chain one link at a time
    /// without recursing, and without the retain, release and uniqueness check per context that the
    /// compiler's own teardown of a `Context?` link costs (see `releaseParent(_:)`).
    @usableFromInline
    let parentBits: UInt

    /// The tree this context belongs to, without a reference count: the root holds it (in `treeOwner`),
    /// and every context holds its parent, so the root outlives its descendants. `Unmanaged` rather than
    /// `unowned(unsafe)`, whose every load is a strong copy: a child made would retain and release it.
    @usableFromInline
    let treeReference: Unmanaged<ContextTree>
    /// The tree, held strongly by the root only.
    let treeOwner: ContextTree?

    /// The values this context was made with. They stay valid for the context's whole life, so a read
    /// of them needs no read section: while nothing in the tree has changed since (`initialGeneration`
    /// is the tree's generation) and no state was published (`stateBits` is 0), reads come from here.
    @usableFromInline
    let initial: ContextValues
    @usableFromInline
    let initialGeneration: UInt64

    /// Whether this context was made as a scope (``scope(name:_:)``): scoped objects resolved below it
    /// belong to it.
    ///
    /// ```swift
    /// app.scope(name: "request").isScope  // true
    /// app.child().isScope          // false
    /// ```
    public let isScope: Bool

    /// Whether a provider is registered in this context's initial values or its ancestors': reads then
    /// tell the values which context reads them, for the providers to build for it.
    @usableFromInline
    let chainHasProviders: Bool

    /// What identifies this context to the providers it registered (a ``RegistrarLink``), made when it
    /// first registers one: see ``ProviderBox/registrar(from:)``.
    @usableFromInline
    let registrarLinkStorage = LazyReference()

    /// What this context owns as a scope (the storage of a ``ScopeStore``); made on first use.
    @usableFromInline
    let scopeStoreStorage = LazyReference()
    /// Whether ``shutdown()`` was called on this context: read without a lock on the resolve path.
    @usableFromInline
    let scopeEnded = Atomic<Bool>(false)

    /// Its members and whether it is one (a ``Membership``); made on first use.
    @usableFromInline
    let membershipStorage = LazyReference()

    /// Whether a subscription was ever made through this context: its deinit then ends them, so that
    /// what observed or tracked a context that went away is not kept until the key changes.
    let isObserved = Atomic<Bool>(false)

    /// Whether a child was ever made of this context: only then can a state below it hold what an update
    /// of it replaces, so an update of a context that never had one (a request's scope, a member) skips
    /// the walk over the tree's state holders. Set before the child reads this context's values; see
    /// `noteChildMade()` for the orderings.
    let hasHadChildren = Atomic<Bool>(false)

    /// 0 while the context reads from `initial`; else the bit pattern of an `Unmanaged<ContextState>`
    /// this context holds a +1 reference to, published by an update or a refresh.
    @usableFromInline
    let stateBits = Atomic<UInt>(0)

    /// `initial` flattened into one table for children, merged on first use.
    let initialFlattened = LazyReference()

    /// Serializes the replacement of this context's state (by ``update(_:)`` or a refresh after an
    /// ancestor changed); made on first use. Readers never take it. Locks are taken descendant first,
    /// then ancestor. It guards the number of updates of this context published, by which an update finds
    /// that another one raced it (a refresh, which changes no value of its own, does not count).
    let writeLockStorage = LazyReference()

    /// The transforms of a context made with ``child(transforming:name:_:)`` (a ``ValueTransforms``),
    /// applied again to what it inherits each time its state is rebuilt; unset for other contexts.
    let transformsStorage = LazyReference()

    // MARK: - Making contexts

    /// Makes a root context, configured by `configure`.
    ///
    /// ```swift
    /// let app = Context(name: "app") { values in
    ///     values.logger = Logger(label: "app")
    ///     values.provide(Database(url: url))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for diagnostics.
    ///   - configure: Sets the context's values; reads inside it see the keys' defaults.
    public convenience init(
        name: String? = nil,
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows {
        var values = ContextValues(own: .empty, inherited: .empty)
        try configure(&values)
        self.init(name: name, root: ContextTree(), values: values)
    }

    /// Makes an empty root context: every key reads as its default until a child overrides it.
    ///
    /// ```swift
    /// let root = Context(name: "tool")
    /// ```
    public convenience init(name: String? = nil) {
        self.init(name: name, root: ContextTree(), values: ContextValues(own: .empty, inherited: .empty))
    }

    /// Makes a root, which owns `root`, the tree of the contexts that will derive from it.
    private convenience init(name: String?, root: ContextTree, values: consuming ContextValues) {
        self.init(
            name: name,
            parent: nil,
            tree: Unmanaged.passUnretained(root),
            treeOwner: root,
            values: values,
            generation: 0,
            isScope: false
        )
    }

    init(
        name: String?,
        parent: Context?,
        tree: Unmanaged<ContextTree>,
        treeOwner: ContextTree?,
        values: consuming ContextValues,
        generation: UInt64,
        isScope: Bool
    ) {
        self.name = name
        self.parentBits = parent.map { ReferenceWord.retained($0) } ?? 0
        self.treeReference = tree
        self.treeOwner = treeOwner
        self.initialGeneration = generation
        self.isScope = isScope
        self.chainHasProviders = values.hasProviders
        let ownHasProviders = values.own.hasProviders
        // Moved in, not copied: a context never holds itself through `origin`.
        values.origin = nil
        self.initial = consume values
        if ownHasProviders { bindProviders(in: initial.own) }
    }

    deinit {
        // No reader can be inside: each holds a strong reference to this context.
        let bits = stateBits.load(ordering: .acquiring)
        if bits != 0 { ReferenceWord.release(bits) }
        if isObserved.load(ordering: .relaxed) { tree.existingObservers?.endSubscriptions(of: ObjectIdentifier(self)) }
        // A member that ends is no longer listed by its host (which holds it weakly, or it could not end).
        leaveHost()
        if !holdsParentWeakly { Context.releaseParent(parentBits) }
        // What it owned as a scope is released now; the store's buffer may serve the next scope.
        if let store = scopeStoreStorage.take(as: LockedBuffer<ScopeStore.State>.self) {
            ScopeStore.keepAsSpare(store)
        }
    }

    /// Derives a child context that overrides nothing: it reads everything this context holds.
    ///
    /// ```swift
    /// let request = app.child(name: "request")
    /// request[\.logger]  // the app's logger
    /// ```
    ///
    /// - Parameter name: A name for diagnostics.
    /// - Returns: The new child. It holds its parent strongly; the parent does not hold it.
    /// - Complexity: O(1), and one allocation (the context).
    public func child(name: String? = nil) -> Context {
        makeChild(name: name, isScope: false) { _ in }
    }

    /// Derives a child context whose values are this context's, overridden by `configure`.
    ///
    /// ```swift
    /// let request = app.child(name: "request \(id)") { $0.requestID = id }
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name for diagnostics.
    ///   - configure: Sets the child's overrides; reads inside it see this context's values.
    /// - Returns: The new child. It holds its parent strongly; the parent does not hold it.
    /// - Complexity: O(1) plus the cost of `configure`; the first child of a context also merges the
    ///   context's own values with what it inherits, once, in O(*n*) for *n* values in the chain.
    public func child(
        name: String? = nil,
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows -> Context {
        try makeChild(name: name, isScope: false, configure)
    }

    // MARK: - Changing values

    /// Replaces values of this context after it was made; this context and its descendants see the new
    /// values from their next read on, unless a context in between overrides them.
    ///
    /// ```swift
    /// app.update { $0.config = reloaded }
    /// app.update { $0.tags.append("canary") }              // a read-modify-write: never loses a racing write
    /// app.update { $0.removeValue(for: VerbosityKey.self) }  // back to the inherited value
    /// ```
    ///
    /// `body` sees the context's current values and runs outside every lock. An update is atomic: when
    /// what `body` read changed before the write (another update of this context raced it, or an
    /// ancestor's values changed), `body` runs again on the new values, so keep it free of other side
    /// effects. Changes elsewhere in the tree (siblings, descendants, other branches) never make it run
    /// again: each extra run means a conflicting update succeeded meanwhile. Observers of what changed
    /// are notified after the new values are stored, on this thread.
    ///
    /// - Parameter body: Changes the context's own values in place; it may run more than once.
    /// - Complexity: O(*n*) for the *n* values this context sets; O(1) when `body` sets or removes one
    ///   value, the same one each time (a reloaded setting), of a context that sets two or more (the first
    ///   such update of a value copies the table once, so that what it replaces is not kept). Plus
    ///   notifying the observers of what changed; when the tree changed while `body` ran, plus comparing
    ///   the values this context inherits; plus O(*h*) for the *h* contexts of the tree that hold a state
    ///   of their own, of which those below that still hold a value this update replaced are brought up to
    ///   date now. Every other context of the tree brings its state up to date once, lazily, on its next
    ///   read: in O(*c* × *d*) for the *c* values the last updates changed and a chain *d* contexts deep,
    ///   without merging what it inherits (or in O(*n*) for the *n* values it inherits, when more than 16
    ///   updates happened since its last read, one of them changed more than 4 values, or a context above
    ///   it transforms what it inherits).
    public func update(_ body: (inout ContextValues) throws -> Void) rethrows {
        while true {
            // The updates of this context published so far: one that publishes while `body` runs is a
            // racing update of the same values, and `body` runs again. A refresh does not count.
            let updates = withWriteLock { $0 }
            let (beforeOwn, beforeInherited, beforeGeneration) = currentTables()
            var after = ContextValues(own: beforeOwn, inherited: beforeInherited, readBy: self)
            try body(&after)
            // Only the own values are kept: the rest goes now, not at the end of the scope.
            var afterOwn = (consume after).own
            if afterOwn.isIdentical(to: beforeOwn) { return }
            // A value replaced or removed goes with the state that shows it (see the Performance article's
            // "Lifetimes"), not with the table this one would share with it.
            afterOwn.releaseHidden(unlessKeptBy: initial.own)
            if transformsStorage.bits.load(ordering: .acquiring) != 0 {
                stopTransforms(overriddenIn: afterOwn, before: beforeOwn)
            }
            // For the tree's change log: what descendants replace in what they inherit.
            let changedEntries = afterOwn.changedEntryIDs(from: beforeOwn)
            let published = withWriteLock { published -> (retired: ContextState?, done: Bool) in
                // Another update of this context published since `updates` was read. If `before` already
                // has its values (it published before the snapshot), the own values are still those
                // `body` read: the same table.
                guard published == updates || ownValues.isIdentical(to: beforeOwn) else {
                    return (nil, false)
                }
                // Moving the generation first makes every state of this context and its descendants
                // stale: from here on, a reader of them refreshes, which waits for this lock, so no reader
                // sees what follows half done.
                let moved = tree.generation.wrappingAdd(1, ordering: .sequentiallyConsistent)
                let generation: UInt64
                if moved.oldValue == beforeGeneration {
                    // Nothing in the tree changed since the snapshot: what it inherits is current.
                    generation = moved.newValue
                } else {
                    // The tree changed meanwhile. If it changed what this context inherits, `body` read
                    // stale values: run it again. Otherwise its result stands (an update elsewhere in the
                    // tree does not conflict with it), but the inherited values next to it may be older
                    // than what readers have seen: it is published with the generation of the snapshot,
                    // older than the tree's, so that no read uses it as it is. The next read rebuilds it
                    // from the parent's current values (`refresh()`), keeping these own values: a reader
                    // never sees them over inherited values older than those it saw before.
                    let inheritedNow = parent?.snapshot().flattened ?? .empty
                    if !inheritedNow.changedIDs(from: beforeInherited).isEmpty {
                        // The generation moved, and changed nothing.
                        tree.recordChange(ChangedIDs(), generation: moved.newValue)
                        return (nil, false)
                    }
                    generation = beforeGeneration
                }
                if afterOwn.hasProviders { bindProviders(in: afterOwn) }
                published += 1
                let retired = publish(
                    ContextState(
                        values: ContextValues(own: afterOwn, inherited: beforeInherited),
                        generation: generation
                    )
                )
                // Recorded once published: a reader that finds the record finds these values.
                if let changedEntries { tree.recordChange(changedEntries, generation: moved.newValue) }
                return (retired, true)
            }
            guard published.done else { continue }
            if let retired = published.retired { tree.readers.retire(retired) }
            // The states below that still hold what this update replaced let it go now.
            // (Only contexts below this one can hold what it replaced, and only what they inherit.)
            if hasHadChildren.load(ordering: .sequentiallyConsistent) && changedEntries?.areAllLocal != true {
                tree.bringUpToDate(holdingReplaced: changedEntries, in: beforeOwn, except: self)
            }
            notifyObservers { afterOwn.changedIDs(from: beforeOwn) }
            return
        }
    }

    /// This context's own values as last published; the caller holds `writeLock`, so that they stay.
    private var ownValues: FrozenTable {
        let bits = stateBits.load(ordering: .sequentiallyConsistent)
        return bits == 0 ? initial.own : ReferenceWord.withInstance(bits, as: ContextState.self) { $0.values.own }
    }
}
