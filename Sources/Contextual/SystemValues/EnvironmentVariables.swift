// `EnvironmentVariables`: the process environment as a value, with typed reads that explain bad values.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - EnvironmentVariables

/// Environment variables by name, read from ``ContextValues/environmentVariables``: the process
/// environment as it was at the first read unless set (empty in a test context), overridable for a
/// subtree like any value.
///
/// ```swift
/// let environment = Context.current[\.environmentVariables]
/// let port = try environment.value("PORT", as: Int.self) ?? 8080  // PORT=abc throws, naming it
/// ```
///
/// A typed read takes an empty variable (`PORT=`) for an unset one; each type accepts one form, listed
/// in the error a value in another form throws (see ``EnvironmentVariableValue``).
public struct EnvironmentVariables: Sendable, Hashable {
    /// Every variable, by name.
    ///
    /// ```swift
    /// environment.all["HOME"]  // "/home/me"
    /// ```
    public var all: [String: String]

    /// Makes a set of variables.
    ///
    /// ```swift
    /// let environment = EnvironmentVariables(["PORT": "8080", "DEBUG": "1"])
    /// ```
    ///
    /// - Parameter all: The variables, by name.
    public init(_ all: [String: String] = [:]) {
        self.all = all
    }

    /// The process's environment variables now.
    ///
    /// ```swift
    /// EnvironmentVariables.process["PATH"]  // "/usr/bin:/bin"
    /// ```
    public static var process: EnvironmentVariables {
        EnvironmentVariables(ProcessEnvironment.read())
    }

    /// The value of the variable `name`, or nil when it is not set.
    ///
    /// ```swift
    /// environment["HOME"]           // "/home/me"
    /// environment["DEBUG"] = "1"    // in a configuring closure: `$0.environmentVariables["DEBUG"] = "1"`
    /// ```
    public subscript(name: String) -> String? {
        get { all[name] }
        set { all[name] = newValue }
    }

    /// The variable `name` read as a `Value`, or nil when it is not set or set to the empty string
    /// (`PORT=`). Each type accepts one form (see ``EnvironmentVariableValue``): a value in another
    /// throws, quoted in the error with the forms the type accepts.
    ///
    /// ```swift
    /// let port = try environment.value("PORT", as: Int.self)      // nil when PORT is not set or empty
    /// let verbose = try environment.value("VERBOSE", as: Bool.self)  // 1/0, true/false, yes/no, on/off
    /// ```
    ///
    /// - Parameters:
    ///   - name: The variable's name.
    ///   - type: The type to read it as.
    /// - Returns: The value, or nil when the variable is not set or empty.
    /// - Throws: ``EnvironmentVariableError`` naming the variable, its value, `type` and the forms it
    ///   accepts, when the value is not a `Value`.
    public func value<Value: EnvironmentVariableValue>(
        _ name: String,
        as type: Value.Type = Value.self
    ) throws(EnvironmentVariableError) -> Value? {
        guard let text = all[name], !text.isEmpty else { return nil }
        guard let value = Value(environmentVariable: text) else {
            throw EnvironmentVariableError(
                name: name,
                value: text,
                expectedType: "\(Value.self)",
                acceptedForms: Value.environmentVariableForms
            )
        }
        return value
    }

    /// The variable `name` read as a string-backed enumeration (a log level, say), or nil when it is not
    /// set or set to the empty string.
    ///
    /// ```swift
    /// enum LogLevel: String, CaseIterable { case debug, info, error }
    /// let level = try environment.value("LOG_LEVEL", as: LogLevel.self) ?? .info  // LOG_LEVEL=loud throws
    /// ```
    ///
    /// - Parameters:
    ///   - name: The variable's name.
    ///   - type: The type to read it as; its raw values are matched exactly, then ignoring case.
    /// - Returns: The value, or nil when the variable is not set or empty.
    /// - Throws: ``EnvironmentVariableError`` naming the variable, its value and `type`, and listing the
    ///   raw values when `type` is `CaseIterable` (`expected one of debug, info, error`).
    public func value<Value: RawRepresentable>(
        _ name: String,
        as type: Value.Type = Value.self
    ) throws(EnvironmentVariableError) -> Value? where Value.RawValue == String {
        guard let text = all[name], !text.isEmpty else { return nil }
        if let value = Value(rawValue: text) ?? Value(rawValue: text.lowercased()) { return value }
        throw EnvironmentVariableError(
            name: name,
            value: text,
            expectedType: "\(Value.self)",
            acceptedForms: Self.rawValueForms(of: Value.self)
        )
    }

    // MARK: - Accepted forms

    /// `one of debug, info, error`: the raw values of a `CaseIterable` enumeration; nil for another type.
    static func rawValueForms<Value: RawRepresentable>(of type: Value.Type) -> String?
    where Value.RawValue == String {
        func rawValues<Cases: CaseIterable>(of cases: Cases.Type) -> [String] {
            Cases.allCases.compactMap { ($0 as? Value)?.rawValue }
        }
        guard let cases = Value.self as? any CaseIterable.Type else { return nil }
        let values = rawValues(of: cases)
        return values.isEmpty ? nil : "one of " + values.joined(separator: ", ")
    }
}
