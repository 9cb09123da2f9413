// `EnvironmentVariableValue`: a type that an environment variable's text can be read as, strictly.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - EnvironmentVariableValue

/// A type that ``EnvironmentVariables/value(_:as:)-13ytk`` reads. `String`, `Int`, `Double`, `Bool` and
/// `URL` adopt it, each accepting one form only (surrounding spaces and tabs ignored), so that a typo is
/// an error rather than a surprising value:
///
/// - `Int`: a decimal integer, an optional sign and ASCII digits (`8080`, `-1`);
/// - `Double`: a finite decimal number, an optional sign, digits, an optional fraction and an optional
///   decimal exponent (`0.5`, `-3`, `.25`, `1e-3`); not `inf`, `nan`, a hexadecimal float or a number
///   too large for a `Double` (`1e309`);
/// - `Bool`: `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, in any case;
/// - `URL`: an absolute URL with a scheme and a host (`https://example.com`, `postgres://db:5432/app`),
///   written in RFC 3986's characters only: letters, digits, `-._~`, `:/?#[]@!$&'()*+,;=` and
///   `%` followed by two hexadecimal digits (percent-encode a space or a non-ASCII character). A URL
///   without a host (`file:///tmp/x`, `mailto:…`) is refused: read it as a `String`.
///
/// Adopt it for your own types; ``environmentVariableForms`` describes the accepted forms in errors.
///
/// ```swift
/// struct Port: EnvironmentVariableValue {
///     var number: UInt16
///     init?(environmentVariable text: String) {
///         guard let number = UInt16(text) else { return nil }
///         self.number = number
///     }
///     static var environmentVariableForms: String? { "a port number from 0 to 65535" }
/// }
/// ```
public protocol EnvironmentVariableValue {
    /// Reads `text`, or returns nil when it is not a valid value.
    ///
    /// ```swift
    /// Int(environmentVariable: "8080")  // 8080
    /// ```
    ///
    /// - Parameter text: The variable's value, never empty.
    init?(environmentVariable text: String)

    /// The forms the type accepts, as a phrase that completes "expected …" in an
    /// ``EnvironmentVariableError``; nil (the default) to name the type only.
    ///
    /// ```swift
    /// Int.environmentVariableForms  // "a decimal integer such as 8080"
    /// ```
    static var environmentVariableForms: String? { get }
}

extension EnvironmentVariableValue {
    /// Nil: an error names the type only.
    ///
    /// ```swift
    /// Port.environmentVariableForms  // nil, unless Port says otherwise
    /// ```
    public static var environmentVariableForms: String? { nil }
}

// MARK: - String

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

// MARK: - Int

extension Int: EnvironmentVariableValue {
    /// The decimal integer in `text`: an optional sign and ASCII digits, surrounding spaces and tabs
    /// ignored; nil for anything else (`0x10`, `1_000`, `8080\0`) or a number out of range.
    ///
    /// ```swift
    /// Int(environmentVariable: " 8080 ")  // 8080
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) {
        let text = text.trimmingSpaces
        guard text.utf8.isDecimalInteger, let value = Int(text) else { return nil }
        self = value
    }

    /// `a decimal integer such as 8080`.
    ///
    /// ```swift
    /// Int.environmentVariableForms  // "a decimal integer such as 8080"
    /// ```
    public static var environmentVariableForms: String? { "a decimal integer such as 8080" }
}

// MARK: - Double

extension Double: EnvironmentVariableValue {
    /// The finite decimal number in `text`: an optional sign, digits, an optional fraction and an
    /// optional decimal exponent, surrounding spaces and tabs ignored; nil for `inf`, `nan`, a
    /// hexadecimal float, a number too large to be finite (`1e309`) or any other text.
    ///
    /// ```swift
    /// Double(environmentVariable: "0.5")  // 0.5
    /// Double(environmentVariable: "inf")  // nil
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) {
        let text = text.trimmingSpaces
        guard text.utf8.isDecimalNumber, let value = Double(text), value.isFinite else { return nil }
        self = value
    }

    /// `a finite decimal number such as 0.5`.
    ///
    /// ```swift
    /// Double.environmentVariableForms  // "a finite decimal number such as 0.5"
    /// ```
    public static var environmentVariableForms: String? { "a finite decimal number such as 0.5" }
}

// MARK: - Bool

extension Bool: EnvironmentVariableValue {
    /// `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off`, in any case (of ASCII letters), surrounding
    /// spaces and tabs ignored.
    ///
    /// ```swift
    /// Bool(environmentVariable: "YES")  // true
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) {
        let text = text.trimmingSpaces
        guard text.utf8.count <= 5 else { return nil }
        switch String(decoding: text.utf8.map(\.lowercasedASCII), as: UTF8.self) {
        case "1", "true", "yes", "on": self = true
        case "0", "false", "no", "off": self = false
        default: return nil
        }
    }

    /// `true/false, 1/0, yes/no, on/off`.
    ///
    /// ```swift
    /// Bool.environmentVariableForms  // "true/false, 1/0, yes/no, on/off"
    /// ```
    public static var environmentVariableForms: String? { "true/false, 1/0, yes/no, on/off" }
}

// MARK: - URL

extension URL: EnvironmentVariableValue {
    /// The absolute URL in `text`, with a scheme and a host, written in RFC 3986's characters only
    /// (surrounding spaces and tabs ignored); nil for a relative URL, one without a host
    /// (`localhost:8080`, `file:///tmp/x`) or one with a character to encode (`http://example.com/a b`):
    /// the URL read is the text as written, never re-encoded.
    ///
    /// ```swift
    /// URL(environmentVariable: "postgres://db/app")?.host(percentEncoded: true)  // "db"
    /// ```
    ///
    /// - Parameter text: The variable's value.
    public init?(environmentVariable text: String) {
        let text = text.trimmingSpaces
        guard text.utf8.isURIText, text.utf8.startsWithScheme, let url = URL(string: String(text)),
            url.scheme != nil, let host = url.host(percentEncoded: true), !host.isEmpty,
            url.absoluteString == text
        else { return nil }
        self = url
    }

    /// `an absolute URL with a scheme and a host, such as https://example.com`.
    ///
    /// ```swift
    /// URL.environmentVariableForms  // "an absolute URL with a scheme and a host, such as https://example.com"
    /// ```
    public static var environmentVariableForms: String? {
        "an absolute URL with a scheme and a host, such as https://example.com"
    }
}

// MARK: - Syntax

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

extension Substring.UTF8View {
    /// Whether the text is an optional sign followed by one or more ASCII digits.
    fileprivate var isDecimalInteger: Bool {
        var rest = self
        rest.skipSign()
        return rest.skipDigits() > 0 && rest.isEmpty
    }

    /// Whether the text is a decimal number: an optional sign, digits with an optional fraction (at least
    /// one digit in all), and an optional exponent (`e` or `E`, an optional sign, digits).
    fileprivate var isDecimalNumber: Bool {
        var rest = self
        rest.skipSign()
        var digits = rest.skipDigits()
        if rest.first == UInt8(ascii: ".") {
            rest.removeFirst()
            digits += rest.skipDigits()
        }
        guard digits > 0 else { return false }
        if rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
            rest.removeFirst()
            rest.skipSign()
            guard rest.skipDigits() > 0 else { return false }
        }
        return rest.isEmpty
    }

    /// Whether every character is one RFC 3986 allows in a URI: unreserved, reserved, or `%` and two
    /// hexadecimal digits.
    fileprivate var isURIText: Bool {
        var rest = self
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard let high = rest.popFirst(), let low = rest.popFirst(), high.isHexDigit, low.isHexDigit
                else { return false }
            } else if !byte.isURICharacter {
                return false
            }
        }
        return true
    }

    /// Whether the text starts with an RFC 3986 scheme and its colon: a letter, then letters, digits,
    /// `+`, `-` or `.`.
    fileprivate var startsWithScheme: Bool {
        guard let first, first.isLetter else { return false }
        for byte in dropFirst() {
            if byte == UInt8(ascii: ":") { return true }
            switch byte {
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): continue
            default: guard byte.isLetter || byte.isDigit else { return false }
            }
        }
        return false
    }

    /// Drops a leading `+` or `-`.
    private mutating func skipSign() {
        if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { removeFirst() }
    }

    /// Drops the leading ASCII digits, and returns how many there were.
    private mutating func skipDigits() -> Int {
        var count = 0
        while let byte = first, byte.isDigit {
            removeFirst()
            count += 1
        }
        return count
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII digit.
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

    /// Whether the byte is an ASCII letter.
    fileprivate var isLetter: Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self | 0x20) }

    /// Whether the byte is an ASCII hexadecimal digit.
    fileprivate var isHexDigit: Bool { isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20) }

    /// The byte in lower case, when it is an ASCII capital letter.
    fileprivate var lowercasedASCII: UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self) ? self | 0x20 : self
    }

    /// Whether the byte is an RFC 3986 unreserved or reserved character.
    fileprivate var isURICharacter: Bool {
        if isLetter || isDigit { return true }
        switch self {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),  // unreserved
            UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["),
            UInt8(ascii: "]"), UInt8(ascii: "@"),  // general delimiters
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):  // subdelimiters
            return true
        default:
            return false
        }
    }
}
