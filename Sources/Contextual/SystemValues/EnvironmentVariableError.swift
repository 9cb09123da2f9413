// `EnvironmentVariableError`: a variable whose value is not of the type a typed read asked for.

// MARK: - EnvironmentVariableError

/// A typed read of an environment variable found a value that is not of the expected type; its
/// description names the variable, quotes its value, names the type and lists the forms the type accepts
/// (`PORT=abc is not a valid Int: expected a decimal integer such as 8080`).
///
/// ```swift
/// do {
///     _ = try EnvironmentVariables(["PORT": "abc"]).value("PORT", as: Int.self)
/// } catch {
///     print(error)  // PORT=abc is not a valid Int: expected a decimal integer such as 8080
/// }
/// ```
///
/// A value with a space, a quotation mark, a backslash or an invisible character (a control or format
/// character, such as NUL or a zero-width space), or starting with a combining mark, is shown in
/// quotation marks, with those characters escaped as in a Swift string literal:
/// `URL="http://example.com/a b" is not a valid URL: …`.
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

    /// The forms the type accepts, as a phrase that completes "expected …"; nil when the type does not
    /// describe them (see ``EnvironmentVariableValue/environmentVariableForms``).
    ///
    /// ```swift
    /// error.acceptedForms  // "a decimal integer such as 8080"
    /// ```
    public var acceptedForms: String?

    /// Makes an error for the variable `name`, whose `value` is not an `expectedType`.
    ///
    /// ```swift
    /// let error = EnvironmentVariableError(
    ///     name: "PORT", value: "abc", expectedType: "Int", acceptedForms: "a decimal integer such as 8080")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The variable's name.
    ///   - value: Its value.
    ///   - expectedType: The name of the type the read expected.
    ///   - acceptedForms: The forms that type accepts, as a phrase completing "expected …", or nil.
    public init(name: String, value: String, expectedType: String, acceptedForms: String? = nil) {
        self.name = name
        self.value = value
        self.expectedType = expectedType
        self.acceptedForms = acceptedForms
    }

    /// `NAME=value is not a valid Type: expected …`, the value quoted when it holds a space or an
    /// invisible character.
    ///
    /// ```swift
    /// error.description  // "PORT=abc is not a valid Int: expected a decimal integer such as 8080"
    /// ```
    public var description: String {
        let problem = "\(name)=\(Self.shown(value)) is not a valid \(expectedType)"
        guard let acceptedForms else { return problem }
        return "\(problem): expected \(acceptedForms)"
    }

    // MARK: - Quoting

    /// `value` as is when every character is visible and unambiguous; otherwise in quotation marks, with
    /// `"`, `\`, NUL, tab, line feed and carriage return escaped as in Swift, and any other invisible
    /// character as `\u{…}`.
    static func shown(_ value: String) -> String {
        let scalars = value.unicodeScalars
        // A combining mark at the start would join the `=` or the quotation mark before it.
        let startsWithMark = scalars.first?.isMark ?? false
        guard startsWithMark || scalars.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" || $0.isInvisible })
        else { return value }
        var shown = "\""
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "\"": shown += "\\\""
            case "\\": shown += "\\\\"
            case "\0": shown += "\\0"
            case "\t": shown += "\\t"
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case _ where scalar.isInvisible || (index == 0 && startsWithMark):
                shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return shown + "\""
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is a combining mark, shown joined to the character before it.
    fileprivate var isMark: Bool {
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Whether the scalar shows nothing, or nothing distinguishable from a space: a control, format,
    /// separator (other than the space), private-use, surrogate or unassigned code point.
    fileprivate var isInvisible: Bool {
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
            return true
        case .spaceSeparator:
            return self != " "
        default:
            return false
        }
    }
}
