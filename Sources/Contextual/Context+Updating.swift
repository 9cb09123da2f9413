// `Context.update(_:)`: replacing a context's values after it was made, atomically.
// Architecture: ARCHITECTURE.md, "Contexts, states and generations".

// MARK: - Changing values

extension Context {
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
