// The message of a missing object, shared by `resolve`, `require` and `@Injected`.

// MARK: - The missing-object message

extension ContextError {
    /// The error for an object nobody provides: the type, every context searched, what needed it, and the fix.
    @usableFromInline
    static func missingObject<T>(_ type: T.Type, in context: Context) -> ContextError {
        let typeName = TypeMetadata.qualifiedName(of: type)
        let chain = context.chainNames
        let path = chain.map { "'\($0)'" }.joined(separator: " → ")
        // A protocol is provided with the type named, and its optional is spelled with parentheses.
        let isExistential = TypeMetadata.isExistential(type)
        let spelled = isExistential && typeName != "Any" && typeName != "Swift.AnyObject" ? "any \(typeName)" : typeName
        let example =
            isExistential
            ? "`context.child(providing: object, as: (\(spelled)).self)`"
            : "`context.child(providing: \(typeName)(…))`"
        let optional = isExistential ? "(\(spelled))?" : "\(typeName)?"
        // Only the process-wide root searched: the reading code ran outside every `run`, where
        // `Context.current` is the root (which provides nothing unless someone provided on it).
        let onlyRoot = context === Context.root
        let fix =
            onlyRoot
            ? "only the process-wide root was searched: the code that read it ran outside `run`, or the value "
                + "holding the `@Injected` property was made outside `run`, so `Context.current` was "
                + "`Context.root`. Make it, or run the code, inside your context's `run { … }` "
                + "(`app.run { SignupHandler() }`), or resolve from your context directly "
                + "(`app.resolve(\(isExistential ? "(\(spelled))" : typeName).self)`); to treat it as optional, "
                + "resolve it as `\(optional)`"
            : "provide it with `child(providing:)` on one of these contexts, e.g. \(example), "
                + "or with `$0.provide(…)` in its configuring closure; to treat it as optional, resolve it as "
                + "`\(optional)`"
        let building = ResolutionFrame.currentLabels
        let needed = building.isEmpty ? "" : " Needed by: \((building + [typeName]).joined(separator: " → "))."
        return ContextError(
            code: .missingObject,
            requestedType: typeName,
            searchedContexts: chain,
            message: "no object of type '\(typeName)' is provided. Searched \(chain.count) "
                + "context\(chain.count == 1 ? "" : "s"): \(path).\(needed) Fix: \(fix).",
            resolutionPath: building.isEmpty ? [] : building + [typeName]
        )
    }
}
