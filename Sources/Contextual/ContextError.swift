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
        }

        private let kind: Kind

        private init(_ kind: Kind) {
            self.kind = kind
        }

        /// No context in the chain provides an object of the requested type.
        ///
        /// ```swift
        /// catch let error as ContextError where error.code == .missingObject { … }
        /// ```
        public static let missingObject = Code(.missingObject)

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

    init(code: Code, requestedType: String?, searchedContexts: [String], message: String) {
        self.code = code
        self.requestedType = requestedType
        self.searchedContexts = searchedContexts
        self.message = message
    }

    // MARK: - Making errors

    @usableFromInline
    static func missingObject<T>(_ type: T.Type, in context: Context) -> ContextError {
        let typeName = String(reflecting: type)
        let chain = context.chainNames
        let path = chain.map { "'\($0)'" }.joined(separator: " → ")
        let fix =
            "provide it with .providing(_:) on one of these contexts, e.g. `context.providing(\(typeName)(…))`, "
            + "or with `$0.provide(…)` in its configuring closure; to treat it as optional, resolve it as "
            + "`\(typeName)?`"
        return ContextError(
            code: .missingObject,
            requestedType: typeName,
            searchedContexts: chain,
            message: "no object of type '\(typeName)' is provided. Searched \(chain.count) "
                + "context\(chain.count == 1 ? "" : "s"): \(path). Fix: \(fix)."
        )
    }
}
