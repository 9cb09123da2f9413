// `ContextError`: what every failure reports (its code, what was asked, where it looked, the fix).

// MARK: - ContextError

/// An error from a context: what was asked, where it looked, and how to fix it.
///
/// ```swift
/// do {
///     let db = try context.require(Database.self)
/// } catch {
///     print(error.code)  // missingObject
///     print(error)       // the full explanation
/// }
/// ```
public struct ContextError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; switch with a `default`.
    ///
    /// ```swift
    /// if error.code == .missingObject { … }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case missingObject
            case factoryFailed
            case cycle
            case captiveDependency
            case noScope
            case scopeEnded
            case asyncProvider
            case providerUnavailable
            case validationFailed
            case shutdownFailed
            case notADirectChild
            case alreadyAMember
            case duplicateContribution
            case buildTimedOut
            case cancelled
            case defaultCycle
            case incompatibleBootReport
            case bootReportFileFailed
            case invalidConfiguration
        }

        private let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// No context in the chain provides an object of the requested type.
        ///
        /// ```swift
        /// catch { if error.code == .missingObject { … } }
        /// ```
        public static let missingObject = Code(.missingObject)

        /// A provider's factory threw; ``ContextError/underlyingErrors`` holds what it threw. Nothing was
        /// cached: the next resolve calls the factory again.
        ///
        /// ```swift
        /// catch { if error.code == .factoryFailed { print(error.underlyingErrors) } }
        /// ```
        public static let factoryFailed = Code(.factoryFailed)

        /// Providers resolve each other in a circle; ``ContextError/resolutionPath`` is the circle, e.g.
        /// `["A", "B", "A"]`.
        ///
        /// ```swift
        /// catch { if error.code == .cycle { print(error.resolutionPath) } }
        /// ```
        public static let cycle = Code(.cycle)

        /// A singleton's factory resolved a scoped object, which would outlive its scope inside the
        /// singleton (a captive dependency, as .NET's `ValidateScopes` reports it).
        ///
        /// ```swift
        /// catch { if error.code == .captiveDependency { … } }
        /// ```
        public static let captiveDependency = Code(.captiveDependency)

        /// A scoped object was resolved from the context that registered its provider, which is not a
        /// scope: resolve it from a child or a ``Context/scope(name:_:)``.
        ///
        /// ```swift
        /// catch { if error.code == .noScope { … } }
        /// ```
        public static let noScope = Code(.noScope)

        /// An object was resolved from (or would be built by) a context that has been shut down.
        ///
        /// ```swift
        /// catch { if error.code == .scopeEnded { … } }
        /// ```
        public static let scopeEnded = Code(.scopeEnded)

        /// An object built by an async factory was resolved synchronously before it was built: use
        /// ``Context/prepare(_:)``.
        ///
        /// ```swift
        /// catch { if error.code == .asyncProvider { … } }
        /// ```
        public static let asyncProvider = Code(.asyncProvider)

        /// A provider was read inside the configuring closure that registers it, before its context
        /// exists; or through an owned member that outlived its host after the context that registered the
        /// provider was gone.
        ///
        /// ```swift
        /// catch { if error.code == .providerUnavailable { … } }
        /// ```
        public static let providerUnavailable = Code(.providerUnavailable)

        /// ``Context/validate()`` found problems; ``ContextError/underlyingErrors`` lists each one.
        ///
        /// ```swift
        /// catch { if error.code == .validationFailed { print(error) } }
        /// ```
        public static let validationFailed = Code(.validationFailed)

        /// Objects failed to shut down; ``ContextError/underlyingErrors`` holds what each one threw.
        ///
        /// ```swift
        /// catch { if error.code == .shutdownFailed { print(error) } }
        /// ```
        public static let shutdownFailed = Code(.shutdownFailed)

        /// A context was registered as a member of a context that is not its parent: a host reads its
        /// direct children only.
        ///
        /// ```swift
        /// catch { if error.code == .notADirectChild { print(error) } }
        /// ```
        public static let notADirectChild = Code(.notADirectChild)

        /// A context was registered as a member of its parent twice.
        ///
        /// ```swift
        /// catch { if error.code == .alreadyAMember { print(error) } }
        /// ```
        public static let alreadyAMember = Code(.alreadyAMember)

        /// Two contributions to a dictionary contribution key share a key; the error names both
        /// contributors.
        ///
        /// ```swift
        /// catch { if error.code == .duplicateContribution { print(error) } }
        /// ```
        public static let duplicateContribution = Code(.duplicateContribution)

        /// A build was waited for longer than the limit of ``ContextValues/buildWaitLimit`` (30 seconds
        /// unless set): a resolve waiting for another task's build of the same object, or a scope's
        /// shutdown waiting for a build it owns. The message names the build, how long it ran, and who
        /// waited. A build that never ends (a circle closed through a detached task, a factory that
        /// hangs) is reported this way instead of hanging.
        ///
        /// ```swift
        /// catch { if error.code == .buildTimedOut { print(error) } }
        /// ```
        public static let buildTimedOut = Code(.buildTimedOut)

        /// The task waiting for another task's build was cancelled. ``Context/prepare(_:)`` throws a
        /// `CancellationError` instead; synchronous resolves never see this code.
        ///
        /// ```swift
        /// catch { if error.code == .cancelled { return } }
        /// ```
        public static let cancelled = Code(.cancelled)

        /// A key's ``ContextKey/defaultValue`` reads its own key, directly or through other keys'
        /// defaults, so computing it would wait for itself forever. A key read cannot throw, so this
        /// stops the process, with the loop of keys in order (e.g. `ThemeKey → PaletteKey → ThemeKey`);
        /// the code is what the message names. Fix: make the defaults independent.
        ///
        /// ```swift
        /// enum ThemeKey: ContextKey {
        ///     // stops the process: "default value cycle: ThemeKey → PaletteKey → ThemeKey"
        ///     static var defaultValue: String { "dark on " + Context.current[PaletteKey.self] }
        /// }
        /// enum PaletteKey: ContextKey {
        ///     static var defaultValue: String { Context.current[ThemeKey.self] + " palette" }
        /// }
        /// ```
        public static let defaultCycle = Code(.defaultCycle)

        /// A boot report given as a baseline was written in another format version than this library's
        /// (``BootReport/currentFormatVersion``), is not a boot report, or breaks a rule of its format:
        /// the message names both versions, or the field at fault and its value. Fix: make the baseline
        /// again with this version.
        ///
        /// ```swift
        /// catch { if error.code == .incompatibleBootReport { print(error) } }
        /// ```
        public static let incompatibleBootReport = Code(.incompatibleBootReport)

        /// A boot report's file could not be read (``BootReport/init(contentsOfFile:)``) or written
        /// (``BootReport/write(toFile:)``): no such file or directory, permission denied, a directory where
        /// the file belongs, a full or read-only disk. The message names the path and what the system said,
        /// in words, and the fix: to record a missing baseline, write a fresh report there.
        ///
        /// ```swift
        /// catch { if error.code == .bootReportFileFailed { print(error) } }
        /// ```
        public static let bootReportFileFailed = Code(.bootReportFileFailed)

        /// A configuration source could not be applied (``ConfigurationMapping/apply(_:to:)``,
        /// ``Context/update(from:with:)``): a mapped value is missing or invalid, or a rule of the mapping
        /// is broken. The message lists every read that failed, with its configuration key, or, when every
        /// read succeeded, every rule broken; nothing was set, so the values set before stay. Fix: correct
        /// the source.
        ///
        /// ```swift
        /// catch { if error.code == .invalidConfiguration { logger.error("\(error.message)") } }
        /// ```
        public static let invalidConfiguration = Code(.invalidConfiguration)

        /// The code's name.
        ///
        /// ```swift
        /// ContextError.Code.missingObject.description  // "missingObject"
        /// ```
        public var description: String { kind.rawValue }
    }

    /// What kind of failure this is.
    ///
    /// ```swift
    /// switch error.code { case .missingObject: …; default: … }
    /// ```
    public let code: Code

    /// The requested type, as Swift prints it, when the failure concerns a type.
    ///
    /// ```swift
    /// error.requestedType  // "MyApp.Database"
    /// ```
    public let requestedType: String?

    /// The names of the contexts searched, nearest first.
    ///
    /// ```swift
    /// error.searchedContexts  // ["request 42", "app"]
    /// ```
    public let searchedContexts: [String]

    /// The providers being built when the failure happened, outermost first; for a ``Code/cycle``, the
    /// whole circle, e.g. `["A", "B", "A"]`.
    ///
    /// ```swift
    /// error.resolutionPath.joined(separator: " → ")  // "A → B → A"
    /// ```
    public let resolutionPath: [String]

    /// The errors behind this one: what a factory threw, what each object threw on shutdown, each
    /// problem ``Context/validate()`` found, or what each failed read of a configuration threw.
    ///
    /// ```swift
    /// for problem in error.underlyingErrors { print(problem) }
    /// ```
    public let underlyingErrors: [any Error]

    /// The full explanation: what was asked, where it looked, and how to fix it.
    ///
    /// ```swift
    /// logger.error("\(error.message)")
    /// ```
    public let message: String

    /// The full explanation, prefixed with the library name.
    ///
    /// ```swift
    /// print(error)  // "Contextual: no object of type 'MyApp.Database' is provided. Searched …"
    /// ```
    public var description: String { "Contextual: \(message)" }

    init(
        code: Code,
        requestedType: String?,
        searchedContexts: [String],
        message: String,
        resolutionPath: [String] = [],
        underlyingErrors: [any Error] = []
    ) {
        self.code = code
        self.requestedType = requestedType
        self.searchedContexts = searchedContexts
        self.message = message
        self.resolutionPath = resolutionPath
        self.underlyingErrors = underlyingErrors
    }
}
