// What a build cell holds whatever it builds: its object's word and its build in flight (internal).
// Architecture: ARCHITECTURE.md, "Providers: boxes, build cells, scope stores and resolution frames".

import Synchronization

// MARK: - AnyBuildCell

/// What a cell holds whatever it builds: the object it built, as a word, and the build in flight. The
/// base of ``BuildCell``, so that a scope's store can empty a cell for the next scope without knowing
/// what it builds (see ``ScopeStore/State/spareCell``); a protocol would do, but an existential cannot
/// be checked for uniqueness in place, which reusing a cell needs.
///
/// `@unchecked Sendable`: ``builtBits`` is atomic, and ``running`` is only touched under the lock its
/// ``BuildCell`` owns or shares with its scope.
@usableFromInline
class AnyBuildCell: @unchecked Sendable {
    /// The object as kept by `keptWord(_:)` (a class instance itself, else a `ValueBox`), held +1, or 0.
    @usableFromInline
    final let builtBits = Atomic<UInt>(0)
    /// The build in flight, if any, and what its waiters wait on; guarded by the scope's lock for a
    /// scoped object's cell, else by the cell's own (see ``BuildCell``). Unchecked for exclusivity: the
    /// lock orders every access (a dynamic check costs about 80 instructions a build).
    @exclusivity(unchecked) nonisolated(unsafe) final var running = RunningBuild.none

    @usableFromInline
    init() {}

    deinit {
        let bits = builtBits.load(ordering: .acquiring)
        if bits != 0 { ReferenceWord.release(bits) }
    }

    /// Empties the cell for reuse, unless a build runs in it (nil then): returns the word of the object it
    /// kept (0 if none), which the caller releases outside the lock. The caller holds the lock the cell
    /// shares with its scope, and the only reference to the cell.
    final func emptyForReuse() -> UInt? {
        guard case .none = running else { return nil }
        return builtBits.exchange(0, ordering: .acquiringAndReleasing)
    }
}
