// The process's environment, arguments, host name, id and processor count, read once on first read.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Process values

extension ContextValues {
    /// The environment variables: the process environment as at the first read unless set; empty in a
    /// test context. Set or change variables for a subtree like any value.
    ///
    /// ```swift
    /// let port = try Context.current[\.environmentVariables].value("PORT", as: Int.self) ?? 8080
    /// let test = Context.testing { $0.environmentVariables["PORT"] = "9000" }
    /// ```
    public var environmentVariables: EnvironmentVariables {
        get { self[EnvironmentVariablesKey.self] }
        set { self[EnvironmentVariablesKey.self] = newValue }
    }

    /// The process arguments (`CommandLine.arguments`: the program's path first) unless set; empty in a
    /// test context.
    ///
    /// ```swift
    /// let verbose = Context.current[\.arguments].contains("--verbose")
    /// ```
    public var arguments: [String] {
        get { self[ArgumentsKey.self] }
        set { self[ArgumentsKey.self] = newValue }
    }

    /// The machine's host name (`gethostname`), or `"localhost"` when it cannot be read; `"localhost"` in
    /// a test context.
    ///
    /// ```swift
    /// let instance = "\(Context.current[\.hostName])-\(Context.current[\.processID])"
    /// ```
    public var hostName: String {
        get { self[HostNameKey.self] }
        set { self[HostNameKey.self] = newValue }
    }

    /// The process's id (`getpid`); 1 in a test context.
    ///
    /// ```swift
    /// let pid = Context.current[\.processID]
    /// ```
    public var processID: Int32 {
        get { self[ProcessIDKey.self] }
        set { self[ProcessIDKey.self] = newValue }
    }

    /// How many processors are online (`sysconf(_SC_NPROCESSORS_ONLN)`, at least 1); 1 in a test context.
    ///
    /// ```swift
    /// let workers = Context.current[\.activeProcessorCount]
    /// ```
    public var activeProcessorCount: Int {
        get { self[ActiveProcessorCountKey.self] }
        set { self[ActiveProcessorCountKey.self] = newValue }
    }
}

/// The key of ``ContextValues/environmentVariables``.
enum EnvironmentVariablesKey: ContextKey {
    static var defaultValue: EnvironmentVariables { .process }
    static var testValue: EnvironmentVariables { EnvironmentVariables() }
}

/// The key of ``ContextValues/arguments``.
enum ArgumentsKey: ContextKey {
    static var defaultValue: [String] { CommandLine.arguments }
    static var testValue: [String] { [] }
}

/// The key of ``ContextValues/hostName``.
enum HostNameKey: ContextKey {
    static var defaultValue: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let name = String(decoding: bytes, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
    static var testValue: String { "localhost" }
}

/// The key of ``ContextValues/processID``.
enum ProcessIDKey: ContextKey {
    static var defaultValue: Int32 { getpid() }
    static var testValue: Int32 { 1 }
}

/// The key of ``ContextValues/activeProcessorCount``.
enum ActiveProcessorCountKey: ContextKey {
    static var defaultValue: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
    static var testValue: Int { 1 }
}
