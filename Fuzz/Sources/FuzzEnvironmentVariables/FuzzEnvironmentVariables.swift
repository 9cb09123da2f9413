// Fuzz target: an environment variable's value read as every type a typed read supports.

import Contextual
import Foundation

// MARK: - Fuzz target

/// libFuzzer's entry point: the bytes are the value of a variable (as the process environment gives them,
/// decoded as UTF-8), read as `String`, `Int`, `Double`, `Bool`, `URL` and a string-backed enumeration.
/// Each read returns a value that reads back the same (nil for an empty value), or throws an error that
/// names the variable, quotes the value whole, names the type and lists the forms it accepts. Anything else
/// stops the process, which libFuzzer reports as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvironmentVariables(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let environment = EnvironmentVariables([name: text])

    let string = read(String.self, text, environment)
    check(string == (text.isEmpty ? nil : text), "a String read is not the value itself", text)
    if let number = read(Int.self, text, environment) {
        check(Int(environmentVariable: String(number)) == number, "an Int read does not read back", text)
    }
    if let number = read(Double.self, text, environment) {
        check(number.isFinite, "a Double read is not finite", text)
        check(Double(environmentVariable: "\(number)") == number, "a Double read does not read back", text)
    }
    if let flag = read(Bool.self, text, environment) {
        check(Bool(environmentVariable: flag ? "true" : "false") == flag, "a Bool read does not read back", text)
    }
    if let url = read(URL.self, text, environment) {
        check(url.scheme != nil, "a URL read has no scheme", text)
        check(url.host(percentEncoded: true)?.isEmpty == false, "a URL read has no host", text)
        check(url.absoluteString.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "a URL read is not RFC 3986 text", text)
    }
    readLevel(text, environment)
    return 0
}

// MARK: - Reads

/// The variable's name.
private let name = "FUZZ_VALUE"

/// A string-backed enumeration, as `LOG_LEVEL` is read.
private enum Level: String, CaseIterable {
    case debug, info, error
}

/// The value read as `Value`, or nil when the read threw the error it should.
private func read<Value: EnvironmentVariableValue>(
    _ type: Value.Type,
    _ text: String,
    _ environment: EnvironmentVariables
) -> Value? {
    do {
        let value = try environment.value(name, as: Value.self)
        check((value == nil) == text.isEmpty, "only an empty variable reads as not set", text)
        return value
    } catch {
        checkError(error, text, "\(Value.self)", acceptedForms: Value.environmentVariableForms)
        return nil
    }
}

/// The value read as a string-backed enumeration: a raw value, exactly or in lower case, or the error.
private func readLevel(_ text: String, _ environment: EnvironmentVariables) {
    do {
        let level = try environment.value(name, as: Level.self)
        if text.isEmpty {
            check(level == nil, "an empty variable reads as set", text)
        } else {
            check(level?.rawValue == text || level?.rawValue == text.lowercased(), "an enumeration read is wrong", text)
        }
    } catch {
        check(Level(rawValue: text) == nil, "a raw value is refused", text)
        checkError(error, text, "Level", acceptedForms: "one of debug, info, error")
    }
}

/// The error names the variable, quotes the whole value, names the type and lists its accepted forms, in
/// its description too: the value as it is, or in quotation marks with Swift's escapes.
private func checkError(
    _ error: EnvironmentVariableError,
    _ text: String,
    _ type: String,
    acceptedForms: String?
) {
    check(!text.isEmpty, "an empty variable throws", text)
    check(error.name == name, "the error names another variable: \(error.name)", text)
    check(error.value == text, "the error holds another value: \(error.value)", text)
    check(error.expectedType == type, "the error names another type: \(error.expectedType)", text)
    check(error.acceptedForms == acceptedForms, "the error lists other forms: \(String(describing: error))", text)
    let prefix = "\(name)="
    let suffix = " is not a valid \(type)" + (acceptedForms.map { ": expected \($0)" } ?? "")
    // Compared as bytes: a value starting with a combining mark would join the `=` in a Character.
    let description = error.description.utf8
    check(
        description.starts(with: prefix.utf8) && description.reversed().starts(with: suffix.utf8.reversed())
            && description.count >= prefix.utf8.count + suffix.utf8.count,
        "the description is \(error)",
        text
    )
    let shown = String(decoding: description.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count), as: UTF8.self)
    check(shown == text || unquoted(shown) == text, "the description shows another value: \(shown)", text)
}

/// `shown` without its quotation marks and Swift's escapes (`\"`, `\\`, `\0`, `\t`, `\n`, `\r`,
/// `\u{…}`), or nil when it is not quoted so.
private func unquoted(_ shown: String) -> String? {
    var scalars = Substring(shown).unicodeScalars
    guard scalars.count >= 2, scalars.removeFirst() == "\"", scalars.removeLast() == "\"" else { return nil }
    var text = String.UnicodeScalarView()
    while let scalar = scalars.popFirst() {
        guard scalar == "\\" else {
            if scalar == "\"" { return nil }
            text.append(scalar)
            continue
        }
        switch scalars.popFirst() {
        case "\"": text.append("\"")
        case "\\": text.append("\\")
        case "0": text.append("\0")
        case "t": text.append("\t")
        case "n": text.append("\n")
        case "r": text.append("\r")
        case "u":
            guard scalars.popFirst() == "{", let end = scalars.firstIndex(of: "}"),
                let value = UInt32(String(scalars[..<end]), radix: 16), let escaped = Unicode.Scalar(value)
            else { return nil }
            text.append(escaped)
            scalars = scalars[scalars.index(after: end)...]
        default: return nil
        }
    }
    return String(text)
}

// MARK: - Failing

private func check(_ condition: Bool, _ problem: @autoclosure () -> String, _ text: String) {
    if !condition { fatalError("FuzzEnvironmentVariables: \(problem())\nvalue: \(String(reflecting: text))") }
}
