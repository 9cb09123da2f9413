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
        /// In order of creation.
        var built: [(label: String, object: any ScopeShutdown)] = []
        /// The labels of the objects built here, in order of creation, for diagnostics.
        var builtLabels: [String] = []
    }

    init() {}

    /// The cell of `provider` in this scope, or nil when the scope ended.
    func cell<Value>(for provider: ProviderBox<Value>) -> BuildCell<Value>? {
        state.withLock { state in
            if ended.load(ordering: .acquiring) { return nil }
            let id = ObjectIdentifier(provider)
            if let entry = state.cells[id] {
                // Safe: the cell was stored under this provider's identity, which fixes `Value`.
                return unsafeDowncast(entry.cell, to: BuildCell<Value>.self)
            }
            let cell = BuildCell<Value>()
            state.cells[id] = (provider, cell)
            return cell
        }
    }

    /// Records an object this scope built; `object` is shut down when the scope ends if it adopts
    /// ``ScopeShutdown``.
    func recordBuilt(_ object: some Sendable, label: String) {
        state.withLock { state in
            state.builtLabels.append(label)
            if let object = object as? any ScopeShutdown { state.built.append((label, object)) }
        }
    }

    /// Ends the scope: forgets its cells and returns the objects to shut down, in order of creation;
    /// nil when it had already ended.
    func end() -> [(label: String, object: any ScopeShutdown)]? {
        let (wasEnded, built, cells) = state.withLock { state in
            let wasEnded = ended.exchange(true, ordering: .acquiringAndReleasing)
            let built = state.built
            let cells = state.cells
            state.built = []
            state.cells = [:]
            return (wasEnded, built, cells)
        }
        _ = consume cells  // released here, outside the lock: objects' deinits may run user code
        return wasEnded ? nil : built
    }

    /// The labels of the objects built here, in order of creation.
    var builtLabels: [String] { state.withLock { $0.builtLabels } }
}
