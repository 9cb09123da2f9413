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
    public let parent: Context?

    @usableFromInline
    let tree: ContextTree

    /// The bit pattern of an `Unmanaged<ContextState>` this context holds a +1 reference to.
    @usableFromInline
    let stateBits: Atomic<UInt>

    /// Serializes the replacement of this context's state (by ``update(_:)`` or a refresh after an
    /// ancestor changed), and counts the states published. Readers never take it. Locks are taken
    /// descendant first, then ancestor.
    private let writeLock = Locked(0)

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
        self.init(name: name, parent: nil, tree: ContextTree(), own: values.own, inherited: .empty, generation: 0)
    }

    /// Makes an empty root context: every key reads as its default until a child overrides it.
    ///
    /// ```swift
    /// let root = Context(name: "tool")
    /// ```
    public convenience init(name: String? = nil) {
        self.init(name: name, parent: nil, tree: ContextTree(), own: .empty, inherited: .empty, generation: 0)
    }

    private init(
        name: String?,
        parent: Context?,
        tree: ContextTree,
        own: FrozenTable,
        inherited: FrozenTable,
        generation: UInt64
    ) {
        self.name = name
        self.parent = parent
        self.tree = tree
        let state = ContextState(values: ContextValues(own: own, inherited: inherited), generation: generation)
        self.stateBits = Atomic(UInt(bitPattern: Unmanaged.passRetained(state).toOpaque()))
    }

    deinit {
        // No reader can be inside: each holds a strong reference to this context.
        Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: stateBits.load(ordering: .acquiring))!)
            .release()
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
    public func child(
        name: String? = nil,
        _ configure: (inout ContextValues) throws -> Void
    ) rethrows -> Context {
        let generation = tree.generation.load(ordering: .sequentiallyConsistent)
        var values = ContextValues(own: .empty, inherited: currentState().flattened)
        try configure(&values)
        return Context(
            name: name,
            parent: self,
            tree: tree,
            own: values.own,
            inherited: values.inherited,
            generation: generation
        )
    }

    /// Derives a child context that overrides one value, like SwiftUI's `environment(_:_:)`.
    ///
    /// ```swift
    /// let verbose = app.child(\.verbosity, 2)
    /// ```
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
    /// let audited = app.transforming(\.tags) { $0.append("audit") }
    /// ```
    public func transforming<Value>(
        _ keyPath: WritableKeyPath<ContextValues, Value>,
        name: String? = nil,
        _ transform: (inout Value) throws -> Void
    ) rethrows -> Context {
        try child(name: name) { try transform(&$0[keyPath: keyPath]) }
    }

    /// Derives a child context that provides `object` under its own type (or under `type`), like
    /// SwiftUI's `environment(_ object:)`.
    ///
    /// ```swift
    /// let app = Context(name: "app").providing(Database(url: url))
    /// let store = app.providing(PostgresStore(), as: (any Store).self)
    /// ```
    public func providing<Object: Sendable>(
        _ object: Object,
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
    /// changed), `body` runs again on the new values, so keep it free of other side effects.
    public func update(_ body: (inout ContextValues) throws -> Void) rethrows {
        while true {
            let before = currentState()
            var after = before.values
            try body(&after)
            if after.own.isIdentical(to: before.values.own) { return }
            let retired = writeLock.withLock { writes -> ContextState? in
                guard unretainedState() === before,
                    before.generation == tree.generation.load(ordering: .sequentiallyConsistent)
                else { return nil }
                let generation = tree.generation.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
                let values = ContextValues(own: after.own, inherited: before.values.inherited)
                writes += 1
                return publish(ContextState(values: values, generation: generation))
            }
            if let retired {
                tree.readers.retire(retired)
                notifyObservers(of: after.own.changedIDs(from: before.values.own))
                return
            }
        }
    }

    // MARK: - State

    /// Runs `body` on this context's current values, inside a read of the tree's domain.
    @inlinable
    func withValues<Result>(_ body: (ContextValues) -> Result) -> Result {
        while true {
            let ticket = tree.readers.enter()
            let bits = stateBits.load(ordering: .sequentiallyConsistent)
            let result = Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
                ._withUnsafeGuaranteedRef { state -> Result? in
                    guard state.generation == tree.generation.load(ordering: .sequentiallyConsistent) else {
                        return nil
                    }
                    return body(state.values)
                }
            tree.readers.leave(ticket)
            if let result { return result }
            refresh()
        }
    }

    /// This context's state, brought up to date with its ancestors.
    func currentState() -> ContextState {
        while true {
            let ticket = tree.readers.enter()
            let bits = stateBits.load(ordering: .sequentiallyConsistent)
            let state = Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
            let isCurrent = state._withUnsafeGuaranteedRef {
                $0.generation == tree.generation.load(ordering: .sequentiallyConsistent)
            }
            // Retained inside the read, so the state cannot be released before the caller owns it.
            if isCurrent { _ = state.retain() }
            tree.readers.leave(ticket)
            if isCurrent { return state.takeRetainedValue() }
            refresh()
        }
    }

    /// Rebuilds this context's state against its parent's current state, after a change in the tree.
    @usableFromInline
    func refresh() {
        let retired = writeLock.withLock { writes -> ContextState? in
            let generation = tree.generation.load(ordering: .sequentiallyConsistent)
            let current = unretainedState()
            if current.generation == generation { return nil }
            let inherited = parent?.currentState().flattened ?? .empty
            let values = ContextValues(own: current.values.own, inherited: inherited)
            writes += 1
            return publish(ContextState(values: values, generation: generation))
        }
        if let retired { tree.readers.retire(retired) }
    }

    /// The state this context holds now, without a reference of the caller's own: valid while the
    /// caller is inside a read or holds `writeLock`.
    private func unretainedState() -> ContextState {
        let bits = stateBits.load(ordering: .sequentiallyConsistent)
        return Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// Installs `state` and returns the state it replaced, with the +1 reference this context held.
    /// The caller holds `writeLock`.
    private func publish(_ state: ContextState) -> ContextState {
        let bits = UInt(bitPattern: Unmanaged.passRetained(state).toOpaque())
        let old = stateBits.exchange(bits, ordering: .sequentiallyConsistent)
        return Unmanaged<ContextState>.fromOpaque(UnsafeRawPointer(bitPattern: old)!).takeRetainedValue()
    }
}
