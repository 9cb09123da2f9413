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
    /// The name shown in diagnostics, such as the message of a failed ``resolve(_:)-(T.Type)``.
    ///
    /// ```swift
    /// Context(name: "app").name  // "app"
    /// ```
    public let name: String?

    /// The context this one was derived from, or `nil` for a root.
    ///
    /// ```swift
    /// app.child { _ in }.parent === app  // true
    /// ```
    public var parent: Context? {
        guard let pointer = UnsafeRawPointer(bitPattern: parentBits) else { return nil }
        // Safe: this context holds a reference to its parent for as long as it lives.
        return Unmanaged<Context>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The parent's address, retained (+1) by this context and released by its deinit, or 0 for a root.
    /// A word rather than a reference, so that the deinit releases a long chain one link at a time
    /// without recursing, and without the retain, release and uniqueness check per context that the
    /// compiler's own teardown of a `Context?` link costs (see `releaseParent(_:)`).
    private let parentBits: UInt

    /// The tree this context belongs to, without a reference count: the root holds it (in `treeOwner`),
    /// and every context holds its parent, so the root outlives its descendants. `Unmanaged` rather than
    /// `unowned(unsafe)`, whose every load is a strong copy: a child made would retain and release it.
    @usableFromInline
    let treeReference: Unmanaged<ContextTree>
    /// The tree, held strongly by the root only.
    private let treeOwner: ContextTree?

    /// The tree this context belongs to.
    @inlinable
    var tree: ContextTree {
        // Safe: the root holds the tree for as long as any context of the tree lives (see above).
        treeReference.takeUnretainedValue()
    }

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
    /// app.child { _ in }.isScope          // false
    /// ```
    public let isScope: Bool

    /// Whether a provider is registered in this context's initial values or its ancestors': reads then
    /// tell the values which context reads them, for the providers to build for it.
    @usableFromInline
    let chainHasProviders: Bool

    /// What this context owns as a scope; made on first use.
    @usableFromInline
    let scopeStoreStorage = LazyReference()

    /// Its members and whether it is one (a ``Membership``); made on first use.
    let membershipStorage = LazyReference()

    /// 0 while the context reads from `initial`; else the bit pattern of an `Unmanaged<ContextState>`
    /// this context holds a +1 reference to, published by an update or a refresh.
    @usableFromInline
    let stateBits = Atomic<UInt>(0)

    /// `initial` flattened into one table for children, merged on first use.
    private let initialFlattened = LazyReference()

    /// Serializes the replacement of this context's state (by ``update(_:)`` or a refresh after an
    /// ancestor changed); made on first use. Readers never take it. Locks are taken descendant first,
    /// then ancestor. It guards a count of the states published, which nothing reads: a zero-sized
    /// `Locked<Void>` made ThreadSanitizer report the lock's own accesses as races.
    private let writeLockStorage = LazyReference()

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
        self.parentBits = parent.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? 0
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
        if bits != 0 { Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        // A member that ends is no longer listed by its host (which holds it weakly, or it could not end).
        leaveHost()
        Context.releaseParent(parentBits)
    }

    /// Releases the +1 reference `bits` holds on a parent. When it is the parent's last, the parent's own
    /// parent is retained first, so that the parent's deinit only drops a shared reference: a chain of
    /// any depth is released in this loop, one context at a time, instead of one deinit inside another.
    private static func releaseParent(_ bits: UInt) {
        var link = bits
        while let pointer = UnsafeRawPointer(bitPattern: link) {
            var parent = Unmanaged<Context>.fromOpaque(pointer).takeRetainedValue()
            guard isKnownUniquelyReferenced(&parent) else { return }
            link = parent.parentBits
            if let next = UnsafeRawPointer(bitPattern: link) { _ = Unmanaged<Context>.fromOpaque(next).retain() }
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

    func makeChild(
        name: String?,
        isScope: Bool,
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows -> Context {
        let generation = tree.generation.load(ordering: .sequentiallyConsistent)
        var values = ContextValues(
            own: .empty,
            inherited: readsInitial ? initialFlattenedTable : snapshot().flattened,
            // Reads in `configure` build a provider's object for this context, when there is a provider
            // to build (one registered in `configure` itself is not bound yet, and says so when read).
            origin: chainHasProviders ? self : nil
        )
        try configure(&values)
        return Context(
            name: name,
            parent: self,
            tree: treeReference,
            treeOwner: nil,
            values: consume values,
            generation: generation,
            isScope: isScope
        )
    }

    /// Derives a child context that overrides one value, like SwiftUI's `environment(_:_:)`.
    ///
    /// ```swift
    /// let verbose = app.child(\.verbosity, 2)
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The value to override, as a property of ``ContextValues``.
    ///   - value: The child's value there.
    ///   - name: A name for diagnostics.
    /// - Returns: The new child.
    /// - Complexity: O(1), as ``child(name:_:)``.
    @inlinable
    public func child<Value>(
        _ keyPath: WritableKeyPath<ContextValues, Value>,
        _ value: Value,
        name: String? = nil
    ) -> Context {
        child(name: name) { $0[keyPath: keyPath] = value }
    }

    /// Derives a child context whose value at `keyPath` is the inherited value transformed by
    /// `transform`, like SwiftUI's `transformEnvironment(_:transform:)`.
    ///
    /// ```swift
    /// let audited = app.child(transforming: \.tags) { $0.append("audit") }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The value to transform, as a property of ``ContextValues``.
    ///   - name: A name for diagnostics.
    ///   - transform: Changes the inherited value in place.
    /// - Returns: The new child.
    public func child<Value>(
        transforming keyPath: WritableKeyPath<ContextValues, Value>,
        name: String? = nil,
        _ transform: (inout Value) throws -> Void
    ) rethrows -> Context {
        try child(name: name) { try transform(&$0[keyPath: keyPath]) }
    }

    /// Derives a child context that provides `object` under its own type (or under `type`), like
    /// SwiftUI's `environment(_ object:)`.
    ///
    /// ```swift
    /// let app = Context(name: "app").child(providing: Database(url: url))
    /// let store = app.child(providing: PostgresStore(), as: (any Store).self)
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object to provide.
    ///   - type: The type to provide it under: its own by default, or a protocol it conforms to.
    ///   - name: A name for diagnostics.
    /// - Returns: The new child.
    public func child<Object: Sendable>(
        providing object: Object,
        as type: Object.Type = Object.self,
        name: String? = nil
    ) -> Context {
        child(name: name) { $0.provide(object, as: type) }
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
    /// the context changed between `body`'s read and the write (another update raced it, or an ancestor
    /// changed), `body` runs again on the new values, so keep it free of other side effects. Observers
    /// of what changed are notified after the new values are stored, on this thread.
    ///
    /// - Parameter body: Changes the context's own values in place; it may run more than once.
    /// - Complexity: O(*n*) for the *n* values this context sets, plus notifying the observers of what
    ///   changed. Every context of the tree then rebuilds its state once, lazily, on its next read.
    public func update(_ body: (inout ContextValues) throws -> Void) rethrows {
        while true {
            let before = snapshot()
            var after = before.values.read(by: self)
            try body(&after)
            if after.own.isIdentical(to: before.values.own) { return }
            let published = writeLock.withLock { writes -> (retired: ContextState?, done: Bool) in
                guard stateBits.load(ordering: .sequentiallyConsistent) == before.bits,
                    before.generation == tree.generation.load(ordering: .sequentiallyConsistent)
                else { return (nil, false) }
                let generation = tree.generation.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
                let values = ContextValues(own: after.own, inherited: before.values.inherited)
                if after.own.hasProviders { bindProviders(in: after.own) }
                writes += 1
                return (publish(ContextState(values: values, generation: generation)), true)
            }
            guard published.done else { continue }
            if let retired = published.retired { tree.readers.retire(retired) }
            notifyObservers(of: after.own.changedIDs(from: before.values.own))
            return
        }
    }

    // MARK: - State

    private var writeLock: Locked<Int> {
        if let lock = writeLockStorage.load(as: Locked<Int>.self) { return lock }
        return writeLockStorage.storeIfNil(Locked(0))
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
        if readsInitial { return chainHasProviders ? body(initial.read(by: self)) : body(initial) }
        return withPublishedValues(body)
    }

    @inlinable
    func withPublishedValues<Result>(_ body: (ContextValues) -> Result) -> Result {
        if let read = beginPublishedRead() {
            defer { tree.readers.leave(read.ticket) }
            return body(read.values.pointee)
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
                let state = Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
                if state._withUnsafeGuaranteedRef({ $0.generation == generation }) {
                    // Retained inside the read, so the state cannot be released before the caller owns it.
                    let owned = state.retain().takeRetainedValue()
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

    /// Everything `initial` holds in one table, for children; merged once.
    @usableFromInline
    var initialFlattenedTable: FrozenTable {
        // The tables passed in place: through `initial.flattened(cachedIn:)`, `initial` would be copied.
        FrozenTable.flattening(initial.own, over: initial.inherited, cachedIn: initialFlattened)
    }

    /// Rebuilds this context's state against its parent's current values, after a change in the tree.
    func refresh() {
        let retired = writeLock.withLock { writes -> ContextState? in
            let generation = tree.generation.load(ordering: .sequentiallyConsistent)
            let bits = stateBits.load(ordering: .sequentiallyConsistent)
            let current =
                bits == 0
                ? (values: initial, generation: initialGeneration)
                : Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
                    ._withUnsafeGuaranteedRef { ($0.values, $0.generation) }
            if current.generation == generation { return nil }
            let inherited = parent?.snapshot().flattened ?? .empty
            writes += 1
            return publish(
                ContextState(
                    values: ContextValues(own: current.values.own, inherited: inherited),
                    generation: generation
                )
            )
        }
        if let retired { tree.readers.retire(retired) }
    }

    /// Binds the providers registered in `own` to this context, their registrar.
    private func bindProviders(in own: FrozenTable) {
        for entry in own.entries {
            if let provider = entry.box as? any AnyProviderBox { provider.bind(to: self) }
        }
    }

    /// Installs `state` and returns the published state it replaced (nil when it replaced `initial`,
    /// which lives as long as the context), with the +1 reference this context held. The caller holds
    /// `writeLock`.
    private func publish(_ state: ContextState) -> ContextState? {
        let bits = UInt(bitPattern: Unmanaged.passRetained(state).toOpaque())
        let old = stateBits.exchange(bits, ordering: .sequentiallyConsistent)
        if old == 0 { return nil }
        return Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
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
