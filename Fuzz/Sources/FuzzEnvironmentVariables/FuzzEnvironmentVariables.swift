// Fuzz target: an environment variable's value read as every type a typed read supports.

import Contextual
import Foundation

// MARK: - Fuzz target

/// libFuzzer's entry point: the bytes are the value of a variable (as the process environment gives them,
/// decoded as UTF-8), read as `String`, `Int`, `Double`, `Bool`, `URL` and a string-backed enumeration.
/// Each read returns a value that reads back the same, or throws an error that names the variable, quotes
/// the value whole and names the type. Anything else stops the process, which libFuzzer reports as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvironmentVariables(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let environment = EnvironmentVariables([name: text])

    let string = read(String.self, text, environment)
    check(string == text, "a String read is not the value itself", text)
    if let number = read(Int.self, text, environment) {
        check(Int(environmentVariable: String(number)) == number, "an Int read does not read back", text)
    }
    if let number = read(Double.self, text, environment), !number.isNaN {
        check(Double(environmentVariable: "\(number)") == number, "a Double read does not read back", text)
    }
    if let flag = read(Bool.self, text, environment) {
        check(Bool(environmentVariable: flag ? "true" : "false") == flag, "a Bool read does not read back", text)
    }
    if let url = read(URL.self, text, environment) {
        check(url.scheme != nil, "a URL read has no scheme", text)
    }
    readLevel(text, environment)
    return 0
}

// MARK: - Reads

/// The variable's name.
private let name = "FUZZ_VALUE"

/// A string-backed enumeration, as `LOG_LEVEL` is read.
private enum Level: String {
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
        check(value != nil, "a variable that is set reads as not set", text)
        return value
    } catch {
        checkError(error, text, "\(Value.self)")
        return nil
    }
}

/// The value read as a string-backed enumeration: a raw value, exactly or in lower case, or the error.
private func readLevel(_ text: String, _ environment: EnvironmentVariables) {
    do {
        let level = try environment.value(name, as: Level.self)
        check(level?.rawValue == text || level?.rawValue == text.lowercased(), "an enumeration read is wrong", text)
    } catch {
        check(Level(rawValue: text) == nil, "a raw value is refused", text)
        checkError(error, text, "Level")
    }
}

/// The error names the variable, quotes the whole value and names the type, in its description too.
private func checkError(_ error: EnvironmentVariableError, _ text: String, _ type: String) {
    check(error.name == name, "the error names another variable: \(error.name)", text)
    check(error.value == text, "the error holds another value: \(error.value)", text)
    check(error.expectedType == type, "the error names another type: \(error.expectedType)", text)
    check(error.description == "\(name)=\(text) is not a valid \(type)", "the description is \(error)", text)
}

// MARK: - Failing

private func check(_ condition: Bool, _ problem: @autoclosure () -> String, _ text: String) {
    if !condition { fatalError("FuzzEnvironmentVariables: \(problem())\nvalue: \(String(reflecting: text))") }
}
