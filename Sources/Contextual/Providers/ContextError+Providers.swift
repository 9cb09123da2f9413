// The errors of providers: failing factories, cycles, captive dependencies, ended scopes, shutdown.

// MARK: - Provider errors

extension ContextError {
    @usableFromInline
    static func factoryFailed(
        _ label: String,
        builtOn context: Context,
        asker: Context,
        path frame: ResolutionFrame,
        error: any Error
    ) -> ContextError {
        let path = frame.path.reversed().map(\.label)
        return ContextError(
            code: .factoryFailed,
            requestedType: label,
            searchedContexts: asker.chainNames,
            message: "the factory of '\(label)' threw: \(error). It was built on '\(context.displayName)' for "
                + "a resolve from \(quotedChain(asker)); resolution path: \(path.joined(separator: " → ")). "
                + "Nothing was cached: the next resolve calls the factory again. Fix: make the factory succeed "
                + "(the error it threw is in `underlyingErrors`), or resolve with `require` to handle the error.",
            resolutionPath: path,
            underlyingErrors: [error]
        )
    }

    /// `make(object, arguments)` where no factory of `object` takes `arguments`: the factories of
    /// `object` there are, by argument type, and the fix (a tuple's labels are part of its type).
    static func missingFactory(
        of object: Any.Type,
        taking arguments: Any.Type,
        registered: [String],
        in context: Context,
        path: [String] = []
    ) -> ContextError {
        let objectName = TypeMetadata.qualifiedName(of: object)
        let argumentsName = TypeMetadata.qualifiedName(of: arguments)
        let factoryName = "Factory<\(argumentsName), \(objectName)>"
        let found =
            registered.isEmpty
            ? "No factory of '\(objectName)' is registered on \(quotedChain(context)). Fix: register one with "
                + "`$0.provideFactory(\(objectName).self) { (context: Context, arguments: \(argumentsName)) in … }`."
            : "The factories of '\(objectName)' there take: "
                + registered.map { "'\($0)'" }.joined(separator: ", ")
                + ". Fix: call `make` with arguments of one of these types (a tuple's labels are part of its "
                + "type: write the labels the factory declares), or register a factory that takes "
                + "'\(argumentsName)'."
        return ContextError(
            code: .missingObject,
            requestedType: factoryName,
            searchedContexts: context.chainNames,
            message: "no factory of '\(objectName)' takes arguments of type '\(argumentsName)' "
                + "(no '\(factoryName)' is provided). " + found,
            resolutionPath: path
        )
    }

    static func cycle(_ circle: [String]) -> ContextError {
        let path = circle.joined(separator: " → ")
        return ContextError(
            code: .cycle,
            requestedType: circle.last,
            searchedContexts: [],
            message: "dependency cycle: \(path). Each factory resolves the next one, so none of them can be "
                + "built. Fix: break the circle: have one of them resolve its dependency when it uses it "
                + "rather than in its factory, or move what they share into a provider of its own.",
            resolutionPath: circle
        )
    }

    @usableFromInline
    static func captiveDependency(singleton: String, scoped: String) -> ContextError {
        let path = ResolutionFrame.currentLabels + [scoped]
        return ContextError(
            code: .captiveDependency,
            requestedType: scoped,
            searchedContexts: [],
            message: "captive dependency: '\(singleton)' resolves '\(scoped)' while it is built (path: "
                + "\(path.joined(separator: " → "))). A singleton lives as long as the context that registered "
                + "it, so it would keep one scope's object after that scope ended. Fix: make the singleton "
                + "scoped or transient, or resolve '\(scoped)' where it is used, from the scope.",
            resolutionPath: path
        )
    }

    @usableFromInline
    static func noScope(_ label: String, registrar: Context, asker: Context) -> ContextError {
        ContextError(
            code: .noScope,
            requestedType: label,
            searchedContexts: asker.chainNames,
            message: "'\(label)' is built once per scope below '\(registrar.displayName)', which registered "
                + "it, but it was resolved from \(quotedChain(asker)), which has no scope below "
                + "'\(registrar.displayName)'. Fix: resolve it from a child, e.g. "
                + "`\(registrar.name ?? "context").scope(name: \"request\") { … }`, or register it with "
                + "`lifetime: .singleton` if one object for all is meant.",
            resolutionPath: ResolutionFrame.currentLabels + [label]
        )
    }

    @usableFromInline
    static func scopeEnded(_ label: String, ended: Context, asker: Context) -> ContextError {
        ContextError(
            code: .scopeEnded,
            requestedType: label,
            searchedContexts: asker.chainNames,
            message: "'\(label)' was resolved from \(quotedChain(asker)), but '\(ended.displayName)', which "
                + "owns it, was shut down and builds nothing more. Fix: resolve objects before the scope "
                + "ends; new work needs a new scope.",
            resolutionPath: ResolutionFrame.currentLabels + [label]
        )
    }

    /// `builderPath` is the resolution path of the build waited for, outermost first (it ends with the
    /// build itself).
    static func buildTimedOut(
        _ label: String,
        waited limit: Duration,
        builderPath: [String],
        asker: Context?
    ) -> ContextError {
        let waiter = asker.map { " from \(quotedChain($0))" } ?? ""
        let path = ResolutionFrame.currentLabels
        let waitingFor = path.isEmpty ? "" : " (needed by \((path + [label]).joined(separator: " → ")))"
        let askedBy = builderPath.dropLast().map { "'\($0)'" }
        let builder =
            askedBy.isEmpty
            ? "a resolve of it outside any other build"
            : "the build of \(askedBy.joined(separator: " → ")), which needs it"
        return ContextError(
            code: .buildTimedOut,
            requestedType: label,
            searchedContexts: asker?.chainNames ?? [],
            message: "a resolve of '\(label)'\(waiter)\(waitingFor) waited \(limit) for another task's build of it, "
                + "started by \(builder), and gave up. That build may be stuck: its factory hangs, or it waits for "
                + "this task through work that does not carry the resolution path (a detached task, say), which "
                + "closes a circle. Fix: make the factory finish, break the circle, or raise the limit with "
                + "`$0.buildWaitLimit = .seconds(…)`.",
            resolutionPath: path + [label]
        )
    }

    static func buildStillRunning(_ label: String, scope: Context) -> ContextError {
        let limit = scope[\.buildWaitLimit]
        return ContextError(
            code: .buildTimedOut,
            requestedType: label,
            searchedContexts: scope.chainNames,
            message: "'\(scope.displayName)' shut down while '\(label)', which it owns, was still being built after "
                + "\(limit); its builder shuts the object down when it is done, and hands it to nobody. Fix: make "
                + "the factory finish, or raise the limit with `$0.buildWaitLimit = .seconds(…)`.",
            resolutionPath: [label]
        )
    }

    static func cancelled(_ label: String, asker: Context?) -> ContextError {
        ContextError(
            code: .cancelled,
            requestedType: label,
            searchedContexts: asker?.chainNames ?? [],
            message: "the task resolving '\(label)' was cancelled while it waited for another task's build of it.",
            resolutionPath: ResolutionFrame.currentLabels + [label],
            underlyingErrors: [CancellationError()]
        )
    }

    @usableFromInline
    static func asyncProvider(_ label: String, asker: Context) -> ContextError {
        ContextError(
            code: .asyncProvider,
            requestedType: label,
            searchedContexts: asker.chainNames,
            message: "'\(label)' is built by an async factory and was not built yet, so a synchronous resolve "
                + "from \(quotedChain(asker)) cannot build it. Fix: `try await context.prepare(…)` "
                + "(once built, synchronous resolves return it), or build it at boot with "
                + "`try await context.prepare()`.",
            resolutionPath: ResolutionFrame.currentLabels + [label]
        )
    }

    @usableFromInline
    static func providerUnavailable(_ label: String, asker: Context?, registrarGone: Bool = false) -> ContextError {
        ContextError(
            code: .providerUnavailable,
            requestedType: label,
            searchedContexts: asker?.chainNames ?? [],
            message: registrarGone
                ? "'\(label)' was registered on a context that is gone: it was read through an owned member that "
                    + "outlived its host, from which it inherited the provider. Fix: end the member with its host, "
                    + "or register the provider on the member, or on a context above its host that is still alive."
                : "'\(label)' was read inside the configuring closure that registers its provider, before "
                    + "the context exists. Fix: read it once the context is made, or register the provider on a "
                    + "parent context.",
            resolutionPath: ResolutionFrame.currentLabels + [label]
        )
    }

    static func validationFailed(_ problems: [ContextError], in context: Context, checked: Int) -> ContextError {
        let list = problems.enumerated().map { "  \($0.offset + 1). [\($0.element.code)] \($0.element.message)" }
        return ContextError(
            code: .validationFailed,
            requestedType: nil,
            searchedContexts: context.chainNames,
            message: "validating \(quotedChain(context)) found \(problems.count) "
                + "problem\(problems.count == 1 ? "" : "s") in \(checked) provider\(checked == 1 ? "" : "s"):\n"
                + list.joined(separator: "\n"),
            underlyingErrors: problems
        )
    }

    static func shutdownFailed(
        _ failures: [(label: String, error: any Error)],
        of count: Int,
        in context: Context
    ) -> ContextError {
        let list = failures.map { "'\($0.label)' threw \($0.error)" }
        return ContextError(
            code: .shutdownFailed,
            requestedType: nil,
            searchedContexts: context.chainNames,
            message: "shutting down '\(context.displayName)' failed for \(failures.count) of \(count) "
                + "object\(count == 1 ? "" : "s"): \(list.joined(separator: "; ")). "
                + (failures.count < count ? "The others were shut down. " : "")
                + "Fix: see `underlyingErrors` for what each threw.",
            underlyingErrors: failures.map(\.error)
        )
    }

    static func quotedChain(_ context: Context) -> String {
        context.chainNames.map { "'\($0)'" }.joined(separator: " → ")
    }
}
