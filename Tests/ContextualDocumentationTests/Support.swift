import Synchronization

// Helpers for the documentation tests; nothing here appears in the documentation.
//
// Every ```swift block of README.md and of each article in Sources/Contextual/Contextual.docc/Articles
// appears verbatim in this folder's <Name>Tests.swift (checked by .ci/check-docs.py). The test target is
// one module, so the types and ContextValues properties those blocks declare are named once across all
// files: an article uses the keys another one declares rather than declaring them again.

/// Collects lines, from any thread: a stand-in for `print` where a sample prints.
final class Lines: Sendable {
    private let storage = Mutex<[String]>([])

    func append(_ line: String) { storage.withLock { $0.append(line) } }

    var all: [String] { storage.withLock { $0 } }

    /// The lines that start with `prefix`.
    func starting(with prefix: String) -> [String] { all.filter { $0.hasPrefix(prefix) } }
}

/// An error for a sample's failing factory or shutdown.
struct SampleFailure: Error, Equatable, CustomStringConvertible {
    let reason: String
    var description: String { "SampleFailure(\(reason))" }
}
