// Reading the process's environment block (`environ`), which only C pointers reach.
// Architecture: ARCHITECTURE.md, "Primitives".

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ProcessEnvironment

/// The process's environment variables, read from the C environment block.
enum ProcessEnvironment {
    /// The variables set now, by name (the first of a name wins, as `getenv` does).
    static func read() -> [String: String] {
        var all: [String: String] = [:]
        #if canImport(Darwin)
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = _NSGetEnviron().pointee
        #else
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        #endif
        while let pointer = entry?.pointee {
            let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
            if let equals = line.firstIndex(of: "="), equals != line.startIndex {
                let name = String(line[..<equals])
                if all[name] == nil { all[name] = String(line[line.index(after: equals)...]) }
            }
            entry = entry?.advanced(by: 1)
        }
        return all
    }
}
