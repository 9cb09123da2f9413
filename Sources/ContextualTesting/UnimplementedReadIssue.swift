// Records an unimplemented read as a Swift Testing issue, at the source line that read the key.

import Contextual
import Runtime
import Synchronization
import Testing

// MARK: - UnimplementedReadIssue

/// The handler of unimplemented reads that the `.context` trait and `withTestContext` install.
enum UnimplementedReadIssue {
    /// Records `read` as an issue of the running test, located at the first frame of the reading thread's
    /// stack outside Contextual and ContextualTesting (the test's own location when the binary has no
    /// debug information); outside a Swift Testing test, also prints it.
    @Sendable
    static func record(_ read: UnimplementedRead) {
        let reader = reader()
        if reader.isKeyPathWrite { return }
        let test = Test.current
        let location = reader.location ?? test?.sourceLocation
        if let location {
            Issue.record(Comment(rawValue: read.description), sourceLocation: location)
        } else {
            Issue.record(Comment(rawValue: read.description))
        }
        if test == nil { print(read.description) }
    }

    /// The directory of the library's sources: frames of files in it are the library's, not the reader's.
    private static let librarySources: Substring = {
        // This file is <package>/Sources/ContextualTesting/UnimplementedReadIssue.swift.
        let parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        return parts.dropLast(2).joined(separator: "/")[...]
    }()

    /// Serializes symbolication, whose caches are not safe to fill from several threads at once (frames
    /// of the standard library then lose their symbols).
    private static let symbolication = Mutex(())

    /// The return addresses, in the standard library, of a key path assignment's read of the old value:
    /// learned once by making one. The standard library's frames are not always symbolicated (after a
    /// first symbolication, this toolchain's often leaves them without a symbol), its addresses always are.
    private static let keyPathWriteAddresses: Set<Backtrace.Address> = {
        let learned = Mutex<Set<Backtrace.Address>>([])
        let probe = Context.testing(
            name: nil,
            onUnimplementedRead: { _ in
                guard let backtrace = try? Backtrace.capture(),
                    let frames = symbolication.withLock({ _ in backtrace.symbolicated()?.frames }),
                    let thunk = frames.firstIndex(where: { $0.symbol?.name.hasPrefix("key path getter for") == true })
                else { return }
                let addresses = frames[(thunk + 1)...].prefix(2).map(\.captured.adjustedProgramCounter)
                learned.withLock { $0.formUnion(addresses) }
            }
        )
        let path = opaqueProbePath()
        _ = probe.child { $0[keyPath: path] = 1 }
        return learned.withLock { $0 }
    }()

    /// Whether `image` is the toolchain's (the standard library, concurrency, Testing), not the user's.
    private static func isToolchainImage(_ image: String) -> Bool {
        image.hasPrefix("libswift") || image.hasPrefix("libTesting") || image.hasPrefix("lib_Testing")
            || image.hasPrefix("libFoundation") || image == "Testing"
    }

    /// Where the reading code is: the first symbolicated frame outside Contextual and ContextualTesting;
    /// and whether the read is the first half of a key path assignment (`values[keyPath: path] = value`,
    /// as in `child(\.key, value)`, gets the old value before it sets the new one), which is no read.
    private static func reader() -> (location: SourceLocation?, isKeyPathWrite: Bool) {
        guard let backtrace = try? Backtrace.capture(),
            let frames = symbolication.withLock({ _ in backtrace.symbolicated()?.frames })
        else {
            return (nil, false)
        }
        for frame in frames {
            if keyPathWriteAddresses.contains(frame.captured.adjustedProgramCounter) { return (nil, true) }
            guard let symbol = frame.symbol else { continue }
            if symbol.name.contains("_projectMutableAddress") || symbol.name.contains("swift_setAt") {
                return (nil, true)
            }
            guard let location = symbol.sourceLocation, location.line > 0 else { continue }
            let path = location.path
            // A macro's expansion (such as `#expect`'s) is a buffer of its own: its caller has the line.
            guard path.hasSuffix(".swift"), !path.contains("@__swiftmacro"), !isToolchainImage(symbol.imageName)
            else { continue }
            if path.hasPrefix(librarySources + "/Contextual/") || path.hasPrefix(librarySources + "/ContextualTesting/")
            {
                continue
            }
            // A key's accessor (`get { self[Key.self] }`) or its key path thunk: the read is the caller.
            if symbol.name.contains("ContextValues.") { continue }
            let components = path.split(separator: "/")
            guard components.count >= 2 else { continue }
            let fileID = "\(components[components.count - 2])/\(components[components.count - 1])"
            let column = max(location.column, 1)
            return (SourceLocation(fileID: fileID, filePath: path, line: location.line, column: column), false)
        }
        return (nil, false)
    }
}

// MARK: - The probe

/// The key of the probe that teaches ``UnimplementedReadIssue`` what a key path assignment looks like.
private enum ProbeKey: ContextKey {
    static var defaultValue: Int { 0 }
    static var testValue: Int { unimplemented() }
}

extension ContextValues {
    fileprivate var contextualTestingProbe: Int {
        get { self[ProbeKey.self] }
        set { self[ProbeKey.self] = newValue }
    }
}

/// The probe's key path, hidden from the optimizer so that the assignment goes through the runtime.
@inline(never)
private func opaqueProbePath() -> WritableKeyPath<ContextValues, Int> {
    \.contextualTestingProbe
}
