// What a scope owns: the objects it built, in order, for shutdown (internal).

import Synchronization

// MARK: - ScopeStore

/// What one context owns as a scope: the cells of the scoped objects built for it, the objects to shut
/// down when it ends (those it built as a scope or as the registrar of singletons), and whether it ended.
/// Made on first use, so a context that builds nothing pays nothing.
@usableFromInline
final class ScopeStore: Sendable {
    private let state = Locked(State())
    /// Whether the scope ended; read without the lock on the resolve path.
    @usableFromInline
    let ended = Atomic<Bool>(false)

    private struct State {
        /// By provider identity: the provider (kept, so that its identity is not reused) and its cell.
        var cells: [ObjectIdentifier: (provider: AnyObject, cell: AnyObject)] = [:]
        /// The objects built here, in order of creation, with their providers (for their labels): the
        /// object is kept only if it is to be shut down.
        var built: [(provider: any AnyProviderBox, object: (any ScopeShutdown)?)] = []
    }

    init() {}

    /// The cell of `provider` in this scope, or nil when the scope ended.
    func cell<Value>(for provider: ProviderBox<Value>) -> BuildCell<Value>? {
        state.withLock { state in
            if ended.load(ordering: .acquiring) { return nil }
            let id = ObjectIdentifier(provider)
            if let entry = state.cells[id] {
                // Safe: the cell was stored under this provider's identity, which fixes `Value`.
                return ReferenceWord.downcast(entry.cell, to: BuildCell<Value>.self)
            }
            let cell = BuildCell<Value>()
            state.cells[id] = (provider, cell)
            return cell
        }
    }

    /// Records an object this scope built; `object` is shut down when the scope ends if it adopts
    /// ``ScopeShutdown``.
    func recordBuilt(_ object: some Sendable, by provider: any AnyProviderBox) {
        let object = object as? any ScopeShutdown
        state.withLock { $0.built.append((provider, object)) }
    }

    /// Ends the scope: forgets its cells and returns the objects to shut down, in order of creation;
    /// nil when it had already ended.
    func end() -> [(label: String, object: any ScopeShutdown)]? {
        let (wasEnded, built, cells) = state.withLock { state in
            let wasEnded = ended.exchange(true, ordering: .acquiringAndReleasing)
            let built = state.built
            let cells = state.cells
            state.built = state.built.map { ($0.provider, nil) }
            state.cells = [:]
            return (wasEnded, built, cells)
        }
        _ = consume cells  // released here, outside the lock: objects' deinits may run user code
        if wasEnded { return nil }
        return built.compactMap { entry in entry.object.map { (entry.provider.label, $0) } }
    }

    /// The labels of the objects built here, in order of creation.
    var builtLabels: [String] { state.withLock { $0.built.map(\.provider.label) } }
}
