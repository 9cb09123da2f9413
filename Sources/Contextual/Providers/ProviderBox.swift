// A registered provider: its factory, lifetime and registrar, and how it resolves (internal).
// Architecture: ARCHITECTURE.md, "Providers: boxes, build cells, scope stores and resolution frames".

import Synchronization

// MARK: - ProviderBox

/// The entry of a provider: a factory and its lifetime, stored in a context's table where a value would
/// be, under the same identity (an object type or a key), so that the nearest of a value and a provider
/// wins, as between two values.
///
/// The box is shared by the context that registered it (its registrar, bound when that context is made)
/// and all its descendants, which inherit the entry; a singleton's cell lives in the box, so every
/// descendant sees the one object.
@usableFromInline
final class ProviderBox<Value: Sendable>: ContextBox {
    /// How the provider builds.
    @usableFromInline
    enum Factory: Sendable {
        case sync(@Sendable (Context) throws -> Value)
        case async(@Sendable (Context) async throws -> Value)
        /// A forwarding's: synchronous (which returns its primary's object once built), and awaiting when
        /// its primary's factory is async.
        case forwarding(@Sendable (Context) throws -> Value, async: (@Sendable (Context) async throws -> Value)?)
    }

    @usableFromInline
    let entryType: Any.Type
    @usableFromInline
    let lifetime: Lifetime
    @usableFromInline
    let factory: Factory
    /// The singleton, once built (unused for other lifetimes).
    @usableFromInline
    let singleton = BuildCell<Value>()
    /// The ``RegistrarLink`` of the context that registered it, set by the first binding.
    @usableFromInline
    let registrarLink = LazyReference()
    /// The type of the last object built, with its low bit set if it adopts ``ScopeShutdown`` (0 before
    /// the first build): see ``shutdownObject(_:)``.
    @usableFromInline
    let shutdownConformance = Atomic<UInt>(0)
    /// A ``ShutdownOpener`` for the first class built that adopts ``ScopeShutdown``; made on first use.
    @usableFromInline
    let shutdownOpener = LazyReference()
    /// What the provider is besides a plain one: a forwarding, or the builder behind a factory.
    let role: ProviderRole
    /// A provider bound to the same registrar as this one (the builder behind a factory).
    let linked: (any AnyProviderBox)?

    init(
        entry: Any.Type,
        lifetime: Lifetime,
        factory: Factory,
        role: ProviderRole = .plain,
        linked: (any AnyProviderBox)? = nil
    ) {
        self.entryType = entry
        self.lifetime = lifetime
        self.factory = factory
        self.role = role
        self.linked = linked
    }

    @usableFromInline
    var addressTag: UInt { 1 }

    /// The provider's name in messages, e.g. `Database (singleton)`.
    @usableFromInline
    var label: String {
        switch role {
        case .plain: "\(name) (\(lifetime))"
        case .forwarded(let primary): "\(name) (\(lifetime), forwarded to \(primary))"
        case .factory: "\(name) (factory)"
        }
    }
    var name: String { TypeMetadata.name(of: entryType) }

    @usableFromInline
    var isAsync: Bool {
        switch factory {
        case .sync: false
        case .async: true
        case .forwarding(_, let async): async != nil
        }
    }

    @usableFromInline
    var entryDescription: String {
        var kind = "\(lifetime) provider\(isAsync ? " (async)" : "") of \(TypeMetadata.name(of: Value.self))"
        if case .forwarded(let primary) = role { kind += ", forwarded to \(primary)" }
        return lifetime == .singleton && singleton.built != nil ? "\(kind), built" : kind
    }

    /// The singleton, if this provider builds one and built it: what a warm resolve returns, in two
    /// loads, from code specialized for `Value`.
    @inlinable
    var builtSingleton: Value? { lifetime == .singleton ? singleton.built : nil }

    // MARK: - Registrar

    /// The context that registered this provider, found on `asker`'s chain (the provider was inherited
    /// from it, so it is `asker` or an ancestor, or beyond an owned member whose host is gone): nil before
    /// the provider is bound, and once the registrar is gone.
    ///
    /// Found by its link rather than kept by a weak reference, which would give the registrar (the app,
    /// which every request's scope retains and releases) a side table: every retain and release of it
    /// would take the runtime's slow path.
    ///
    /// - Complexity: O(*d*) for the *d* contexts between `asker` and the registrar.
    @inlinable
    func registrar(from asker: Context) -> Context? {
        guard let link = registrarLink.load(as: RegistrarLink.self) else { return nil }
        return asker.ancestor(registeredWith: link)
    }

    /// The registrar's name in diagnostics, e.g. `app`; nil before the provider is bound.
    var registrarName: String? { registrarLink.load(as: RegistrarLink.self)?.displayName }

    /// Binds the provider to the context that registered it, by its link; the first binding wins, for the
    /// provider's whole life (a provider belongs to the context whose values it was registered in, even
    /// once that context is gone).
    @usableFromInline
    func bind(to link: RegistrarLink) {
        if registrarLink.load(as: RegistrarLink.self) == nil { _ = registrarLink.storeIfNil(link) }
        linked?.bind(to: link)
    }

    /// Whether the objects it resolves are its own to record and shut down: a forwarding hands out its
    /// primary's object, which the primary records, so that it is shut down once.
    @usableFromInline
    var ownsObjects: Bool {
        if case .forwarded = role { return false }
        return true
    }

    // MARK: - Resolving

    /// The object for `asker`: the built one if there is one, else built now.
    ///
    /// Specialized where the object is resolved (with ``BuildCell/value(frame:asker:build:)``, which it
    /// calls), so that a build looks up no generic metadata for `Value`: a request's scoped objects come
    /// here.
    @inlinable
    func resolve(from asker: Context) throws(ContextError) -> Value {
        if lifetime == .singleton, let value = singleton.built { return value }
        // The thread's block and the path looked up once (the path is a task-local read among others),
        // for the captive check, the scope's store and the build's frame.
        let thread = ThreadSlot.Block.running
        let path = ResolutionFrame.current(in: thread)
        let target = try target(for: asker, path: path, thread: thread)
        if let cell = target.cell, let value = cell.built { return value }
        let make: @Sendable (Context) throws -> Value
        switch factory {
        case .sync(let sync), .forwarding(let sync, _): make = sync
        case .async: throw ContextError.asyncProvider(label, asker: asker)
        }
        return try ResolutionFrame.withFrame(building: self, below: path, in: thread) {
            frame throws(ContextError) -> Value in
            try build(in: frame, target: target, make: make, asker: asker, thread: thread)
        }
    }

    /// Builds the object of `target` (a cell's, or a transient one when `target` has no cell) with `make`,
    /// running in `frame` on the thread whose block is `thread`: ``resolve(from:)`` once the object is not
    /// built yet.
    @inlinable
    func build(
        in frame: ResolutionFrame,
        target: (cell: BuildCell<Value>?, context: Context),
        make: @Sendable (Context) throws -> Value,
        asker: Context,
        thread: ThreadSlot.Block
    ) throws(ContextError) -> Value {
        guard let cell = target.cell else {
            return try buildTransient(asker: asker) { () throws(ContextError) in
                try run(make, on: target.context, in: frame, asker: asker, thread: thread)
            }
        }
        if cell.isScoped {
            return try buildScoped(
                in: frame,
                cell: cell,
                scope: target.context,
                make: make,
                asker: asker,
                thread: thread
            )
        }
        return try cell.value(frame: frame, asker: asker) { () throws(ContextError) -> Value in
            let store = target.context.scopeStore
            guard store.beginBuild(of: self) else {
                throw ContextError.scopeEnded(label, ended: target.context, asker: asker)
            }
            let value: Value
            do throws(ContextError) {
                value = try run(make, on: target.context, in: frame, asker: asker, thread: thread)
            } catch {
                store.endBuild(built: false, shutdown: nil, by: self)
                throw error
            }
            try checkOwned(
                store.endBuild(built: ownsObjects, shutdown: ownsObjects ? shutdownObject(value) : nil, by: self),
                value,
                owner: target.context,
                asker: asker
            )
            return value
        }
    }

    /// Builds the object of `cell`, a scoped object's cell in `scope`, with `make`, running in `frame`, or
    /// waits for the build in flight: as ``BuildCell/value(frame:asker:build:)`` with the scope's store
    /// told of the build, where the cell's step and the store's bookkeeping share one critical section
    /// at the start and one at the end (the cell is guarded by the scope's lock). `thread` is the running
    /// thread's block.
    @inlinable
    func buildScoped(
        in frame: ResolutionFrame,
        cell: BuildCell<Value>,
        scope: Context,
        make: @Sendable (Context) throws -> Value,
        asker: Context,
        thread: ThreadSlot.Block
    ) throws(ContextError) -> Value {
        while true {
            switch cell.nextStep(frame: frame, beginningBuildOf: self, in: scope) {
            case nil:
                throw ContextError.scopeEnded(label, ended: scope, asker: asker)
            case .built?:
                if let value = cell.built { return value }
            case .wait(let attempt)?:
                try cell.waitForBuild(attempt, asker: asker)
            case .build?:
                let value: Value
                do throws(ContextError) {
                    value = try run(make, on: scope, in: frame, asker: asker, thread: thread)
                } catch {
                    let ended = cell.endScopedBuild(keeping: nil, shutdown: nil, ownedBy: self, owned: false, in: scope)
                    ended.attempt?.finish(error)
                    throw error
                }
                let ended = cell.endScopedBuild(
                    keeping: value,
                    shutdown: ownsObjects ? shutdownObject(value) : nil,
                    ownedBy: self,
                    owned: ownsObjects,
                    in: scope
                )
                do throws(ContextError) {
                    try checkOwned(ended.outcome, value, owner: scope, asker: asker)
                } catch {
                    ended.attempt?.finish(error)
                    throw error
                }
                ended.attempt?.finish(nil)
                return value
            }
        }
    }

    /// An object built for `asker` by `make` rather than by the registered factory, as a transient
    /// provider builds: what a ``Contextual/Factory`` runs with its arguments.
    func build(for asker: Context, with make: (Context) throws -> Value) throws(ContextError) -> Value {
        let path = ResolutionFrame.current
        let target = try target(for: asker, path: path)
        return try ResolutionFrame.withFrame(building: self, below: path) { frame throws(ContextError) -> Value in
            try buildTransient(asker: asker) { () throws(ContextError) in
                try run(make, on: target.context, in: frame, asker: asker)
            }
        }
    }

    /// The object for `asker`, awaiting an async factory (a synchronous one runs as in
    /// ``resolve(from:)``).
    func resolveAsync(from asker: Context) async throws(ContextError) -> Value {
        let make: @Sendable (Context) async throws -> Value
        switch factory {
        case .async(let async), .forwarding(_, async: let async?): make = async
        default: return try resolve(from: asker)
        }
        if lifetime == .singleton, let value = singleton.built { return value }
        let path = ResolutionFrame.current
        let target = try target(for: asker, path: path)
        if let cell = target.cell, let value = cell.built { return value }
        let frame = try ResolutionFrame.enter(self, below: path)
        guard let cell = target.cell else {
            guard let owner = transientOwnerIfItMayShutDown(asker: asker) else {
                return try recordTransient(await run(make, on: target.context, in: frame, asker: asker), asker: asker)
            }
            let store = try beginTransientBuild(in: owner, asker: asker)
            let value: Value
            do throws(ContextError) {
                value = try await run(make, on: target.context, in: frame, asker: asker)
            } catch {
                store.endBuild(built: false, shutdown: nil, by: self)
                throw error
            }
            return try endTransientBuild(value, in: store, owner: owner, asker: asker)
        }
        return try await cell.value(frame: frame, asker: asker) { () async throws(ContextError) -> Value in
            let store = target.context.scopeStore
            guard store.beginBuild(of: self) else {
                throw ContextError.scopeEnded(label, ended: target.context, asker: asker)
            }
            let value: Value
            do throws(ContextError) {
                value = try await run(make, on: target.context, in: frame, asker: asker)
            } catch {
                store.endBuild(built: false, shutdown: nil, by: self)
                throw error
            }
            try checkOwned(
                store.endBuild(built: ownsObjects, shutdown: ownsObjects ? shutdownObject(value) : nil, by: self),
                value,
                owner: target.context,
                asker: asker
            )
            return value
        }
    }

    /// Where the object lives and which context its factory resolves from: the registrar for a
    /// singleton, the scope for a scoped object, the asking context for a transient one. `path` is the
    /// running task's innermost build (``ResolutionFrame/current``), if any.
    @inlinable
    func target(
        for asker: Context,
        path: ResolutionFrame?,
        thread: ThreadSlot.Block = .running
    ) throws(ContextError) -> (cell: BuildCell<Value>?, context: Context) {
        // One load and branch unless counters were turned on; the tree lent, not retained.
        asker.treeReference._withUnsafeGuaranteedRef { $0.countResolve(of: self) }
        if lifetime == .scoped, let singleton = ResolutionFrame.enclosingSingleton(on: path) {
            throw ContextError.captiveDependency(singleton: singleton.label, scoped: label)
        }
        // Unbound while the closure that registers it runs (the context it builds for does not exist yet),
        // and once its registrar is gone (an owned member that outlived its host reads what it inherited).
        if lifetime == .scoped {
            // The registrar and the scope in one walk up from the asker, lent (the asker's chain holds
            // them): only the scope returned is retained.
            let found = registrarLink.withInstance(as: RegistrarLink.self) { link in
                asker.withScopeOwnerAndRegistrar(registeredWith: link) {
                    owner,
                    registrar -> Result<(cell: BuildCell<Value>?, context: Context), ContextError> in
                    guard let owner else { return .failure(.noScope(label, registrar: registrar, asker: asker)) }
                    guard let cell = owner.scopeCell(for: self, thread: thread) else {
                        return .failure(.scopeEnded(label, ended: owner, asker: asker))
                    }
                    return .success((cell, owner))
                }
            }
            guard let found, let found else { throw unavailable(asker: asker) }
            return try found.get()
        }
        guard let registrar = registrar(from: asker) else { throw unavailable(asker: asker) }
        if lifetime == .transient {
            if let owner = transientOwner(asker: asker, registrar: registrar), owner.isEnded {
                throw ContextError.scopeEnded(label, ended: owner, asker: asker)
            }
            return (nil, asker)
        }
        // A singleton (a scoped object returned above).
        if registrar.isEnded { throw ContextError.scopeEnded(label, ended: registrar, asker: asker) }
        return (singleton, registrar)
    }

    /// The error of a resolve from `asker` that finds no registrar: the provider is not bound yet (read in
    /// the closure that registers it), or its registrar is gone.
    @usableFromInline
    func unavailable(asker: Context) -> ContextError {
        ContextError.providerUnavailable(
            label,
            asker: asker,
            registrarGone: registrarLink.load(as: RegistrarLink.self) != nil
        )
    }

    /// The scope a transient object built for `asker` belongs to: the nearest context made as a scope
    /// (``Context/scope(name:_:)``) from `asker` up to `registrar`, both included; nil when there is
    /// none, and the object is then the caller's alone. A long-lived context that is no scope (an app's
    /// root) keeps nothing of the transients it resolves, however many. A context on the way that was
    /// shut down is the owner, so that it builds nothing more that it would have to shut down.
    @usableFromInline
    func transientOwner(asker: Context, registrar: Context) -> Context? {
        var node: Context? = asker
        while let current = node {
            if current.isScope || current.scopeEnded.load(ordering: .acquiring) { return current }
            if current === registrar { return nil }
            node = current.parent
        }
        return nil
    }

    /// A transient object, built by `build` for `asker`. When it may belong to a scope (the provider's
    /// objects adopt ``ScopeShutdown``, or it built none yet, and a scope is on the way), the build is one
    /// that scope owns, so that the scope's shutdown waits for it and shuts the object down with the rest;
    /// else the object is handed over once built, if it adopts it after all (``recordTransient(_:asker:)``).
    @inlinable
    func buildTransient(
        asker: Context,
        _ build: () throws(ContextError) -> Value
    ) throws(ContextError) -> Value {
        guard let owner = transientOwnerIfItMayShutDown(asker: asker) else {
            return try recordTransient(build(), asker: asker)
        }
        let store = try beginTransientBuild(in: owner, asker: asker)
        let value: Value
        do throws(ContextError) {
            value = try build()
        } catch {
            store.endBuild(built: false, shutdown: nil, by: self)
            throw error
        }
        return try endTransientBuild(value, in: store, owner: owner, asker: asker)
    }

    /// The scope a transient object built for `asker` would belong to, when its provider's objects may
    /// adopt ``ScopeShutdown`` (those of the last type built do, or none was built yet); nil otherwise,
    /// without a walk: most providers' objects do not.
    @inlinable
    func transientOwnerIfItMayShutDown(asker: Context) -> Context? {
        let known = shutdownConformance.load(ordering: .relaxed)
        guard known == 0 || known & 1 != 0, ownsObjects, let registrar = registrar(from: asker) else { return nil }
        return transientOwner(asker: asker, registrar: registrar)
    }

    /// Starts a transient build that `owner`, a scope, owns; throws when the scope ended.
    @usableFromInline
    func beginTransientBuild(in owner: Context, asker: Context) throws(ContextError) -> ScopeStore {
        let store = owner.scopeStore
        guard store.beginBuild(of: self) else { throw ContextError.scopeEnded(label, ended: owner, asker: asker) }
        return store
    }

    /// Ends a transient build begun with ``beginTransientBuild(in:asker:)``: `value` is recorded to be
    /// shut down with the scope if it adopts ``ScopeShutdown``, and handed out unless the scope ended.
    @usableFromInline
    func endTransientBuild(
        _ value: Value,
        in store: ScopeStore,
        owner: Context,
        asker: Context
    ) throws(ContextError) -> Value {
        let object = shutdownObject(value)
        try checkOwned(
            store.endBuild(built: object != nil, shutdown: object, by: self),
            value,
            owner: owner,
            asker: asker
        )
        return value
    }

    /// Hands a transient object that adopts ``ScopeShutdown`` to the scope it belongs to, which shuts it
    /// down with the rest, in reverse order of creation.
    @usableFromInline
    func recordTransient(_ value: Value, asker: Context) throws(ContextError) -> Value {
        guard ownsObjects, let object = shutdownObject(value), let registrar = registrar(from: asker),
            let owner = transientOwner(asker: asker, registrar: registrar)
        else { return value }
        try checkOwned(owner.scopeStore.recordTransient(object, by: self), value, owner: owner, asker: asker)
        return value
    }

    /// `value` as a ``ScopeShutdown``, if its type adopts it. Whether the type of the last object
    /// adopts it is remembered, and for the first class that does, its conformance: a provider pays for
    /// a dynamic cast once, not on every build, whether its objects adopt it or not (most).
    @inlinable
    func shutdownObject(_ value: Value) -> (any ScopeShutdown)? {
        // A type's metadata is aligned: its low bit is free to say whether the type adopts it.
        let typeBits = UInt(bitPattern: ObjectIdentifier(type(of: value)))
        let known = shutdownConformance.load(ordering: .relaxed)
        if known & ~1 == typeBits {
            if known & 1 == 0 { return nil }
            // A provider of a class (not of a protocol existential) opens its objects without a cast.
            if let reference = classReference(value) {
                let opened = shutdownOpener.withInstance(as: ShutdownOpener.self) { opener in
                    opener.typeBits == typeBits ? opener.open(reference) : nil
                }
                if case let object?? = opened { return object }
            }
        }
        return findShutdownConformance(of: value, typeBits: typeBits)
    }

    /// ``shutdownObject(_:)`` for a type not seen last: a dynamic cast, remembered. Inlinable, so that
    /// the cast is specialized for `Value`: unspecialized, it goes through the runtime's most general
    /// cast, several times dearer.
    @inlinable
    func findShutdownConformance(of value: Value, typeBits: UInt) -> (any ScopeShutdown)? {
        let object = value as? any ScopeShutdown
        if let object, shutdownOpener.load(as: ShutdownOpener.self) == nil {
            _ = shutdownOpener.storeIfNil(ShutdownOpener(object))
        }
        shutdownConformance.store(typeBits | (object == nil ? 0 : 1), ordering: .relaxed)
        return object
    }

    /// Fails a resolve whose object was built while its scope ended: the object is shut down with the
    /// scope (or here, when the scope's shutdown is already over), never handed out.
    @usableFromInline
    func checkOwned(
        _ outcome: ScopeStore.Outcome,
        _ value: Value,
        owner: Context,
        asker: Context
    ) throws(ContextError) {
        switch outcome {
        case .recorded: return
        case .ended: break
        case .closed:
            if let object = shutdownObject(value) { owner.shutDownLate([(label, object)]) }
        }
        throw ContextError.scopeEnded(label, ended: owner, asker: asker)
    }

    @inlinable
    func run(
        _ make: (Context) throws -> Value,
        on context: Context,
        in frame: ResolutionFrame,
        asker: Context,
        thread: ThreadSlot.Block = .running
    ) throws(ContextError) -> Value {
        do {
            // A `require` around this build does not see its factory's failures (see `FailureSink`).
            return try ResolutionFrame.withCurrent(frame, in: thread) {
                try context.tree.observeBuild(in: frame) { try make(context) }
            }
        } catch let error as ContextError {
            throw error
        } catch {
            throw ContextError.factoryFailed(label, builtOn: context, asker: asker, path: frame, error: error)
        }
    }

    private func run(
        _ make: (Context) async throws -> Value,
        on context: Context,
        in frame: ResolutionFrame,
        asker: Context
    ) async throws(ContextError) -> Value {
        do {
            return try await ResolutionFrame.withCurrent(frame) {
                try await context.tree.observeBuild(in: frame) { try await make(context) }
            }
        } catch let error as ContextError {
            throw error
        } catch is CancellationError {
            // The builder's task was cancelled: the object did not fail, and other waiters build again.
            throw ContextError.cancelled(label, asker: asker)
        } catch {
            throw ContextError.factoryFailed(label, builtOn: context, asker: asker, path: frame, error: error)
        }
    }
}

// MARK: - ProviderRole

/// What a provider is besides a plain one.
enum ProviderRole: Sendable {
    /// A provider of its own type.
    case plain
    /// Resolves the provider of the type named, whose objects it hands out as its own type.
    case forwarded(to: String)
    /// Builds with a factory's arguments (see ``Contextual/Factory``).
    case factory
}

// MARK: - AnyProviderBox

/// What validation and diagnostics need of a provider, whatever it builds.
@usableFromInline
protocol AnyProviderBox: ContextBox {
    var label: String { get }
    /// The type it provides.
    var providedType: Any.Type { get }
    var lifetime: Lifetime { get }
    var isAsync: Bool { get }
    /// Whether a singleton provider built its object.
    var isBuilt: Bool { get }
    func bind(to link: RegistrarLink)
    /// Resolves the provider from `context` (building it if needed), discarding the object.
    func validate(from context: Context) throws(ContextError)
    func validateAsync(from context: Context) async throws(ContextError)
}

extension ProviderBox: AnyProviderBox {
    @usableFromInline
    var isBuilt: Bool { singleton.built != nil }

    @usableFromInline
    var providedType: Any.Type { Value.self }

    @usableFromInline
    func validate(from context: Context) throws(ContextError) {
        _ = try resolve(from: context)
    }

    @usableFromInline
    func validateAsync(from context: Context) async throws(ContextError) {
        _ = try await resolveAsync(from: context)
    }
}

// MARK: - RegistrarLink

/// What identifies the context that registered providers: the context holds its link, and each provider
/// it registered holds the same one, by which a resolve finds the registrar on the asker's chain (see
/// ``ProviderBox/registrar(from:)``). Neither refers to the other: a provider never keeps its registrar
/// alive (the registrar holds it), and no weak reference gives the registrar a side table.
///
/// ```swift
/// let link = RegistrarLink(name: "app", depth: 0)
/// ```
@usableFromInline
final class RegistrarLink: Sendable {
    /// The registrar's name, for its name in diagnostics (made only when one asks: a context made per
    /// request may register providers).
    let name: String?
    /// The registrar's depth below its root, for its name in diagnostics when it has no name.
    let depth: Int
    /// A weak reference to the registrar (a lock around a ``WeakContext``), made only once an owned member
    /// is registered below it: a member that outlives its host still reaches the providers registered
    /// above the host, whose chain it no longer holds (see ``registrarBeyondBrokenChain``).
    private let weakRegistrar = LazyReference()

    init(name: String?, depth: Int) {
        self.name = name
        self.depth = depth
    }

    /// The registrar's name in diagnostics, as ``Context/displayName`` gives it.
    var displayName: String { Context.displayName(name: name, depth: depth) }

    /// Keeps a weak reference to `registrar`, this link's context, unless one is kept: called when an owned
    /// member is registered below it (the only way a chain below it can break while it lives).
    func keepWeakReference(to registrar: Context) {
        _ = weakRegistrar.lock(makingWith: WeakContext(context: registrar))
    }

    /// The registrar, found through the weak reference kept for owned members below it: for a walk up an
    /// asker's chain that stopped at a member whose host is gone. Nil when none was kept or the registrar
    /// is gone too.
    var registrarBeyondBrokenChain: Context? {
        weakRegistrar.existingLock(of: WeakContext.self)?.withLock { $0.context }
    }
}

// MARK: - WeakContext

/// A weak reference to a context, as a value (a member's host, in ``Membership``; a registrar, in
/// ``RegistrarLink``).
struct WeakContext {
    weak var context: Context?
}
