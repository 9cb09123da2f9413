// The errors of members and contributions: not a direct child, already a member, duplicate contributions.

// MARK: - Membership and contribution errors

extension ContextError {
    static func notADirectChild(_ child: Context, host: Context) -> ContextError {
        let parent = child.parent.map { "'\($0.displayName)'" } ?? "none (it is a root)"
        return ContextError(
            code: .notADirectChild,
            requestedType: nil,
            searchedContexts: child.chainNames,
            message: "'\(child.displayName)' can't be a member of '\(host.displayName)': a host reads its "
                + "direct children only, and its parent is \(parent) (chain: \(quotedChain(child))). Fix: "
                + "make it with `\(host.name ?? "host").member(name:) { … }`, or register it with its own "
                + "parent."
        )
    }

    static func alreadyAMember(_ child: Context, host: Context) -> ContextError {
        ContextError(
            code: .alreadyAMember,
            requestedType: nil,
            searchedContexts: child.chainNames,
            message: "'\(child.displayName)' is already a member of '\(host.displayName)'; a member is "
                + "listed once. Fix: register it once, or `removeMember(_:)` it first to register it again "
                + "with another ownership."
        )
    }

    static func endedMember(_ child: Context, host: Context) -> ContextError {
        ContextError(
            code: .scopeEnded,
            requestedType: nil,
            searchedContexts: child.chainNames,
            message: "'\(child.displayName)' has been shut down, so it can't become a member of "
                + "'\(host.displayName)': a member that ends leaves its host. Fix: register it before "
                + "shutting it down, or register a new scope."
        )
    }

    static func duplicateContribution(
        key: String,
        preference: String,
        first: String?,
        second: String?
    ) -> ContextError {
        func describe(_ contributor: String?) -> String {
            contributor.map { "'\($0)'" } ?? "this context's own values"
        }
        let contributors =
            first == second
            ? "both from \(describe(first))" : "from \(describe(first)) and from \(describe(second))"
        return ContextError(
            code: .duplicateContribution,
            requestedType: preference,
            searchedContexts: (first == second ? [first] : [first, second]).compactMap { $0 },
            message: "two contributions to '\(preference)' use the key \(key), \(contributors). A "
                + "dictionary contribution keeps one value per key, so neither may win silently. Fix: "
                + "give each contribution its own key, or declare the key as an `ArrayContributionKey` to "
                + "keep both."
        )
    }
}
