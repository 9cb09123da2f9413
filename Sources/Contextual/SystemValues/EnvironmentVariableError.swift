// `EnvironmentVariableError`: a variable whose value is not of the type a typed read asked for.

// MARK: - EnvironmentVariableError

/// A typed read of an environment variable found a value that is not of the expected type; its
/// description names the variable, its value and the type (`PORT=abc is not a valid Int`).
///
/// ```swift
/// do {
///     _ = try EnvironmentVariables(["PORT": "abc"]).value("PORT", as: Int.self)
/// } catch {
///     print(error)  // PORT=abc is not a valid Int
/// }
/// ```
public struct EnvironmentVariableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The variable's name.
    ///
    /// ```swift
    /// error.name  // "PORT"
    /// ```
    public var name: String

    /// The variable's value.
    ///
    /// ```swift
    /// error.value  // "abc"
    /// ```
    public var value: String

    /// The type the read expected.
    ///
    /// ```swift
    /// error.expectedType  // "Int"
    /// ```
    public var expectedType: String

    /// Makes an error for the variable `name`, whose `value` is not an `expectedType`.
    ///
    /// ```swift
    /// let error = EnvironmentVariableError(name: "PORT", value: "abc", expectedType: "Int")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The variable's name.
    ///   - value: Its value.
    ///   - expectedType: The name of the type the read expected.
    public init(name: String, value: String, expectedType: String) {
        self.name = name
        self.value = value
        self.expectedType = expectedType
    }

    /// `NAME=value is not a valid Type`.
    ///
    /// ```swift
    /// error.description  // "PORT=abc is not a valid Int"
    /// ```
    public var description: String { "\(name)=\(value) is not a valid \(expectedType)" }
}
