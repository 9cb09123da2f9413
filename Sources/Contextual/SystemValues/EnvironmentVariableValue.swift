// `EnvironmentVariableValue`: a type that an environment variable's text can be read as.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - EnvironmentVariableValue

/// A type that ``EnvironmentVariables/value(_:as:)-13ytk`` reads: `String`,
/// `Int`, `Double`, `Bool` (`1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`, any case) and `URL` (absolute
/// only) adopt it; adopt it for your own types.
///
/// ```swift
/// struct Port: EnvironmentVariableValue {
///     var number: UInt16
///     init?(environmentVariable text: String) {
///         guard let number = UInt16(text) else { return nil }
///         self.number = number
///     }
/// }
/// ```
public protocol EnvironmentVariableValue {
    /// Reads `text`, or returns nil when it is not a valid value.
    ///
    /// ```swift
    /// Int(environmentVariable: "8080")  // 8080
    /// ```
    ///
    /// - Parameter text: The variable's value.
    init?(environmentVariable text: String)
}

extension String: EnvironmentVariableValue {
    /// `text` itself.
    ///
    /// ```swift
    /// String(environmentVariable: "info")  // "info"
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) { self = text }
}

extension Int: EnvironmentVariableValue {
    /// The decimal integer in `text` (surrounding spaces ignored).
    ///
    /// ```swift
    /// Int(environmentVariable: " 8080 ")  // 8080
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) {
        guard let value = Int(text.trimmingSpaces) else { return nil }
        self = value
    }
}

extension Double: EnvironmentVariableValue {
    /// The number in `text` (surrounding spaces ignored).
    ///
    /// ```swift
    /// Double(environmentVariable: "0.5")  // 0.5
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) {
        guard let value = Double(text.trimmingSpaces) else { return nil }
        self = value
    }
}

extension Bool: EnvironmentVariableValue {
    /// `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off`, in any case.
    ///
    /// ```swift
    /// Bool(environmentVariable: "YES")  // true
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) {
        switch text.trimmingSpaces.lowercased() {
        case "1", "true", "yes", "on": self = true
        case "0", "false", "no", "off": self = false
        default: return nil
        }
    }
}

extension URL: EnvironmentVariableValue {
    /// The absolute URL in `text` (one with a scheme).
    ///
    /// ```swift
    /// URL(environmentVariable: "postgres://db/app")?.host  // "db"
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) {
        guard let url = URL(string: String(text.trimmingSpaces)), url.scheme != nil else { return nil }
        self = url
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
