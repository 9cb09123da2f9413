// The `Context` class: its stored state, and making roots and children.
// Architecture: ARCHITECTURE.md, "Contexts, states and generations" (what each stored property is for).

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

    /// ``parent``, for a caller inside a read section of the tree's domain (see ARCHITECTURE.md, "Members
    /// and preferences": why the section keeps an owned member's parent alive).
    var parentInsideRead: Context? {
        if parentBits == 0 { return nil }
        if holdsParentWeakly { return membershipIfMade?.host }
        return ReferenceWord.instance(parentBits, as: Context.self)
    }

    /// Whether this context is an owned member, which holds its host (its parent) weakly.
    var holdsParentWeakly: Bool {
        // Sequentially consistent, as is `holdHostWeakly(_:)`'s exchange (announce, then check).
        membershipStorage.withInstance(as: Membership.self) {
            $0.holdsHostWeakly.load(ordering: .sequentiallyConsistent)
        } ?? false
    }

    /// The parent's address, retained (+1), or 0 for a root: a word, released without recursion.
    @usableFromInline
    let parentBits: UInt

    /// The tree this context belongs to, unretained: the root holds it (`treeOwner`), as does an owned
    /// member (its `Membership`), and every other context holds its parent.
    @usableFromInline
    let treeReference: Unmanaged<ContextTree>
    /// The tree, held strongly by a root only.
    let treeOwner: ContextTree?

    /// The values this context was made with, valid for its whole life, and the tree's generation then.
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

    /// Whether a provider is registered in this context's initial values or its ancestors'.
    @usableFromInline
    let chainHasProviders: Bool

    /// What identifies this context to the providers it registered (a ``RegistrarLink``); made on first use.
    @usableFromInline
    let registrarLinkStorage = LazyReference()

    /// What this context owns as a scope (the storage of a ``ScopeStore``); made on first use.
    @usableFromInline
    let scopeStoreStorage = LazyReference()
    /// Whether ``shutdown()`` was called on this context.
    @usableFromInline
    let scopeEnded = Atomic<Bool>(false)

    /// Its members and whether it is one (a ``Membership``); made on first use.
    @usableFromInline
    let membershipStorage = LazyReference()

    /// Whether a subscription was ever made through this context (its deinit then ends them).
    let isObserved = Atomic<Bool>(false)

    /// Whether a child was ever made of this context (see `noteChildMade()` for the orderings).
    let hasHadChildren = Atomic<Bool>(false)

    /// 0 while the context reads `initial`; else a +1 `Unmanaged<ContextState>` word it published.
    @usableFromInline
    let stateBits = Atomic<UInt>(0)

    /// `initial` flattened into one table for children, merged on first use.
    let initialFlattened = LazyReference()

    /// Serializes the replacement of this context's state; guards the count of updates published.
    let writeLockStorage = LazyReference()

    /// The transforms of a context made with ``child(transforming:name:_:)`` (a ``ValueTransforms``).
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
}
