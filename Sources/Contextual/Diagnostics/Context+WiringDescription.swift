// `wiringDescription`: the chain of a context and what each context sets, provides and built.

// MARK: - Dump

extension Context: CustomDebugStringConvertible {
    /// The chain from the root down to this context: each context's name, each key or type it sets or
    /// provides (with the lifetime of a provider, and whether a singleton was built), whether a context
    /// below overrides it, the container values and preferences it sets about itself (never inherited,
    /// so never "overridden"), its members, and the objects each scope built. Values themselves are not
    /// printed (they may be secrets): only their types. A forwarded type says which type it is forwarded
    /// to, and the providers added for one type with ``ContextValues/addProvider(_:lifetime:_:)`` show
    /// as `all` that type, with those the context added. Entries are sorted by name, so the output is
    /// stable.
    ///
    /// ```swift
    /// print(request.wiringDescription)
    /// // Context chain of 'request 1', root first:
    /// // - 'app' (root)
    /// //     key ConfigKey: value of type Config, overridden below in 'request 1'
    /// //     object Database: singleton provider of Database, built
    /// //     object Transaction: scoped provider of Transaction
    /// // - 'request 1' (child of 'app')
    /// //     key ConfigKey: value of type Config
    /// //     built here: Transaction (scoped)
    /// ```
    ///
    /// Named for what it describes, so that it does not shadow the standard library's `dump(_:)`.
    ///
    /// - Complexity: O(*n*) for the *n* entries of the contexts in the chain, plus their members.
    public var wiringDescription: String {
        var chain: [Context] = []
        var node: Context? = self
        while let current = node {
            chain.insert(current, at: 0)
            node = current.parent
        }
        let owns = chain.map { context in context.withValues { $0.own.entries } }
        var lines = ["Context chain of '\(displayName)', root first:"]
        for (index, context) in chain.enumerated() {
            var traits = [context.parent.map { "child of '\($0.displayName)'" } ?? "root"]
            if context.isScope { traits.append("scope") }
            if context.isEnded { traits.append("ended") }
            if context.isMember { traits.append("member") }
            lines.append("- '\(context.displayName)' (\(traits.joined(separator: ", ")))")
            var entries: [String] = []
            for entry in owns[index] {
                let typeName = TypeMetadata.name(of: entry.box.entryType)
                var line = "    \(entry.id.kind) \(typeName): \(entry.box.entryDescription)"
                // Providers added for a type add up along the chain: a context below adds, never overrides.
                if entry.box is any AnyProviderList {
                    entries.append("    all \(typeName): \(entry.box.entryDescription)")
                    continue
                }
                if !entry.id.isLocal,
                    let below = chain.indices.dropFirst(index + 1).first(where: {
                        owns[$0].contains { $0.id == entry.id }
                    })
                {
                    line += ", overridden below in '\(chain[below].displayName)'"
                }
                entries.append(line)
            }
            lines += entries.sorted()
            let members = context.members.map { member in
                "'\(member.context.displayName)'" + (member.ownership == .owned ? " (owned)" : "")
            }
            if !members.isEmpty { lines.append("    members: \(members.joined(separator: ", "))") }
            if let state = context.scopeStoreStorage.existingLock(of: ScopeStore.State.self) {
                let store = ScopeStore(state, of: context)
                let built = store.builtLabels
                if !built.isEmpty { lines.append("    built here: \(built.joined(separator: ", "))") }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The same as ``wiringDescription``.
    ///
    /// ```swift
    /// debugPrint(request)
    /// ```
    public var debugDescription: String { wiringDescription }
}
