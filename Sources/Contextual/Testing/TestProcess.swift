// `TestProcess`: whether this process runs tests, detected once, for the values an unset key reads.
// Architecture: ARCHITECTURE.md, "Default values and test values".

// MARK: - TestProcess

/// Whether the process is a test runner (XCTest's or Swift Testing's), detected once from its arguments
/// and environment, without linking either: in a test runner, a context that is neither a test context
/// nor a live one reads each unset key's ``ContextKey/testValue`` instead of its ``ContextKey/defaultValue``,
/// so that a test that forgets its `.context` trait never reaches production services.
///
/// It is asked once, when the process-wide store of values is made (``DefaultValueStore/shared``), never
/// on the read path: a production process pays nothing for it.
///
/// ```swift
/// TestProcess.isRunningTests  // true inside `swift test`
/// ```
enum TestProcess {
    /// Whether this process runs tests.
    static let isRunningTests = detect(
        arguments: CommandLine.arguments,
        environment: ProcessEnvironment.read()
    )

    /// Whether `arguments` and `environment` are those of a test runner: XCTest's environment variables
    /// (Xcode sets them), or the runner's own executable (`arguments[0]`): a `.xctest` bundle (what
    /// `swift test` runs on Linux), `xctest` or `swiftpm-testing-helper`. Only the executable is looked
    /// at: a program given a file named `Foo.xctest` is not a test runner.
    ///
    /// ```swift
    /// TestProcess.detect(arguments: ["/x/AppPackageTests.xctest"], environment: [:])      // true
    /// TestProcess.detect(arguments: ["/usr/bin/tool", "export", "A.xctest"], environment: [:])  // false
    /// ```
    static func detect(arguments: [String], environment: [String: String]) -> Bool {
        let variables = ["XCTestBundlePath", "XCTestConfigurationFilePath", "XCTestSessionIdentifier"]
        if variables.contains(where: { environment[$0] != nil }) { return true }
        guard let executable = arguments.first else { return false }
        let name = executable.split(separator: "/").last.map(String.init) ?? executable
        return name == "xctest" || name == "swiftpm-testing-helper" || name.hasSuffix(".xctest")
    }
}
