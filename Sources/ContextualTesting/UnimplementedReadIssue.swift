// Records an unimplemented read as a Swift Testing issue, at the source line that read the key.

import Contextual
import Foundation
import Runtime
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

    /// The addresses of the calls, in the standard library, of a key path assignment's read of the old
    /// value, innermost first: learned once by making one. Its frames are matched by address, not by name
    /// (the standard library's exported symbols do not name them all), and as a sequence: in an optimized
    /// build an ordinary key path read passes through some of the same functions.
    ///
    /// The probe is usually made during the first unimplemented read, so its stack has the real read
    /// below it: the addresses are the standard library's frames just inside the probe's own assignment
    /// (the configuring closure that `child` calls), found from the outside in.
    private static let keyPathWriteAddresses: [UInt] = {
        let learned = Locked<[UInt]>.make([])
        let probe = Context.testing(
            name: nil,
            onUnimplementedRead: { _ in
                let frames = captureStack()
                guard let child = frames.firstIndex(where: { $0.symbol?.name.contains("Context.makeChild") == true })
                else { return }
                // Outward from the innermost `makeChild`: past the closure it calls (and its thunks) to
                // the standard library's frames of the assignment.
                var index = child - 1
                while index >= max(0, child - 4), !isToolchainFrame(frames[index]) { index -= 1 }
                var addresses: [UInt] = []
                while index >= 0, isToolchainFrame(frames[index]) {
                    addresses.insert(frames[index].address, at: 0)
                    index -= 1
                }
                learned.withLock { if $0.isEmpty { $0 = addresses } }
            }
        )
        let path = opaqueProbePath()
        _ = probe.child { $0[keyPath: path] = 1 }
        return learned.withLock { $0 }
    }()

    /// Whether the frames from `index` on are a key path assignment's read of the old value.
    private static func isKeyPathWrite(_ frames: [StackFrame], at index: Int) -> Bool {
        let learned = keyPathWriteAddresses
        guard !learned.isEmpty, index + learned.count <= frames.count else { return false }
        return learned.indices.allSatisfy { frames[index + $0].address == learned[$0] }
    }

    /// The running thread's stack from the caller of this function, each frame named from its image's
    /// symbol table unless the image is the toolchain's (whose exported symbols name what is looked for
    /// there).
    @inline(never)
    private static func captureStack() -> [StackFrame] {
        Array(NativeStack.capture { !isToolchainImage($0.name) }.dropFirst())
    }

    /// Whether `frame` is in the toolchain's libraries, or in no image the dynamic linker knows.
    private static func isToolchainFrame(_ frame: StackFrame) -> Bool {
        frame.image.map { isToolchainImage($0.name) } ?? true
    }

    /// Whether `name` is a read of the library's (`Context.subscript.getter`, `Injected.wrappedValue`, or
    /// a closure in one, such as the one `@Injected(\.key)` makes to read its key), as a frame inlined
    /// into user code names it.
    private static func isLibraryRead(_ name: String) -> Bool {
        var name = name.hasPrefix("specialized ") ? name.dropFirst("specialized ".count) : name[...]
        // `closure #1 in Injected.init(_:from:)`, `implicit closure #2 in …`: the function it is in.
        while name.hasPrefix("closure #") || name.hasPrefix("implicit closure #"), let range = name.range(of: " in ") {
            name = name[range.upperBound...]
        }
        return name.hasPrefix("Context.") || name.hasPrefix("Injected.") || name.hasPrefix("Injected<")
    }

    /// Whether `image` is the toolchain's (the standard library, concurrency, Testing), not the user's.
    private static func isToolchainImage(_ image: String) -> Bool {
        image.hasPrefix("libswift") || image.hasPrefix("libTesting") || image.hasPrefix("lib_Testing")
            || image.hasPrefix("libFoundation") || image == "Testing"
    }

    /// Where the reading code is, and how many frames were symbolicated with their source locations to
    /// find it.
    struct Reader {
        /// The reading line, if a frame with a source location outside the library was found.
        var location: SourceLocation?
        /// Whether the read is the first half of a key path assignment, which is no read.
        var isKeyPathWrite: Bool
        /// How many of the stack's frames were looked up in the debug information (those found in
        /// ``locations`` are not).
        var framesLookedUp: Int
        /// How many of those were looked up through the toolchain's symbolication (where the line tables
        /// cannot say: an optimized build, another platform).
        var framesSymbolicatedByToolchain = 0
    }

    /// What a frame of the stack, at a return address, says about the reader: its line, or nothing (a
    /// frame of the library, of a macro's expansion, without debug information). Kept per address, since
    /// finding a frame's source location costs a pass over the debug information's line tables.
    private enum FrameLocation {
        case reader(SourceLocation)
        case notTheReader
    }

    /// What each frame looked up so far says about the reader, by return address.
    private static let locations = Locked<[UInt: FrameLocation]>.make([:])

    /// Where the reading code is: the first frame outside Contextual and ContextualTesting with a source
    /// location; and whether the read is the first half of a key path assignment (`values[keyPath: path]
    /// = value`, as in `child(\.key, value)`, gets the old value before it sets the new one), which is no
    /// read.
    ///
    /// The stack is captured and its frames named by ``NativeStack`` (with the GNU C library, its unwinder
    /// and each image's symbol table); only the frames that may be the reader's are looked up in the debug
    /// information, one at a time from the innermost, until one is, and what each says is kept by address.
    /// In a debug build on Linux a frame is looked up in its image's line tables, each unit's read once per
    /// process when its code is first looked up (``ImageLineTables``: a binary search, where the
    /// toolchain's symbolication runs every line program of the image again for each frame); otherwise,
    /// or where they cannot say, by symbolicating it with its source location and inline frames. A frame
    /// that neither can place is passed over for its caller's.
    @inline(never)
    static func reader() -> Reader {
        var reader = Reader(location: nil, isKeyPathWrite: false, framesLookedUp: 0)
        let frames = captureStack()
        for (index, frame) in frames.enumerated() {
            if isKeyPathWrite(frames, at: index) {
                reader.isKeyPathWrite = true
                return reader
            }
            guard let symbol = frame.symbol, let image = frame.image else { continue }
            if symbol.name.contains("_projectMutableAddress") || symbol.name.contains("swift_setAt") {
                reader.isKeyPathWrite = true
                return reader
            }
            if isToolchainImage(image.name) || isLibraryFrame(symbol) { continue }
            let known = locations.withLock { $0[frame.address] }
            let location: FrameLocation
            if let known {
                location = known
            } else if let found = lineTableLocation(of: symbol, at: frame.address, in: image) {
                reader.framesLookedUp += 1
                location = found
                locations.withLock { $0[frame.address] = location }
            } else {
                guard let inlined = symbolicatedWithInlineFrames(frame.address) else { continue }
                reader.framesLookedUp += 1
                reader.framesSymbolicatedByToolchain += 1
                location = frameLocation(inlined.compactMap(LocatedFrame.init))
                locations.withLock { $0[frame.address] = location }
            }
            if case .reader(let found) = location {
                reader.location = found
                return reader
            }
        }
        return reader
    }

    /// The frames of the call at `address`, on the running thread's stack, as the toolchain's
    /// symbolication gives them with their source locations and inline frames (innermost first): where
    /// the line tables cannot say (an optimized build, another platform). `nil` if the frame is not found.
    @inline(never)
    private static func symbolicatedWithInlineFrames(_ address: UInt) -> [SymbolicatedBacktrace.Frame]? {
        // The frame's depth below this function, then the frame again, alone, at that depth: the two
        // captures are called from here alike. Symbolicating the whole stack with source locations would
        // cost a pass over the debug information per frame.
        guard let stack = try? Backtrace.capture(limit: 128),
            let depth = Array(stack.frames).firstIndex(where: { UInt64($0.adjustedProgramCounter) == UInt64(address) }),
            let alone = try? Backtrace.capture(limit: 2, offset: depth, top: 0),
            alone.frames.first(where: { _ in true }).map({ UInt64($0.adjustedProgramCounter) }) == UInt64(address),
            let inlined = NativeStack.symbolication.withLock({ _ in alone.symbolicated()?.frames })
        else {
            return nil
        }
        // The frames of this address only: the capture holds the caller's too, whose line depends on the
        // stack, not on the address (the result is kept by address).
        return inlined.filter { UInt64($0.captured.adjustedProgramCounter) == UInt64(address) }
    }

    /// Whether `symbol`, a frame's function as its image's symbol table names it, is one of the library's
    /// own that no user code is inlined into: a function of Contextual or ContextualTesting (by its mangled
    /// module), or one the source-located frames are skipped for by name, that is no specialization (a
    /// specialized function may have a user's closure inlined into it).
    ///
    /// A member of an extension of one of the library's types declared in another module (the user's
    /// `extension Context { … }`) is mangled under the library's module too, and named like the library's
    /// reads (`Context.…`): it is the user's code, not the library's. Such a frame is still skipped when it
    /// is a key's accessor (`ContextValues.…`), whose caller is the reader.
    private static func isLibraryFrame(_ symbol: StackFrame.Symbol) -> Bool {
        let name = symbol.name
        if name.hasPrefix("specialized ") { return false }
        if name.contains("ContextValues.") { return true }
        let raw = symbol.rawName
        if isInExtension(raw) { return false }
        let libraryModule = raw.hasPrefix("$s10Contextual") || raw.hasPrefix("$s17ContextualTesting")
        return libraryModule || isLibraryRead(name)
    }

    /// Whether the mangled name `raw` is of a member of an extension declared in another module than the
    /// extended type's: its context is a module, nominal types (`C`, `V`, `O`, `P`), then a module
    /// followed by `E`. Extensions in the type's own module are mangled as the type itself, so this never
    /// holds for Contextual's own extensions of its types; ContextualTesting's extensions of Contextual's
    /// types are recognized by their source path instead (``frameLocation(_:)``).
    ///
    /// An extension with a generic signature (a `where` clause) is not recognized: a frame of one is
    /// treated as the library's when its mangled module is.
    static func isInExtension(_ raw: String) -> Bool {
        var rest = Substring(raw)
        guard rest.hasPrefix("$s") else { return false }
        rest = rest.dropFirst(2)
        guard skipIdentifier(&rest) else { return false }  // the module
        while skipIdentifier(&rest), let kind = rest.first {
            rest = rest.dropFirst()
            switch kind {
            case "C", "V", "O", "P": continue
            case "E": return true
            default: return false
            }
        }
        return false
    }

    /// Moves `rest` past the mangled identifier at its start (`7Context`, or with word substitutions
    /// `0A7Testing`); `false` if it does not start with one.
    private static func skipIdentifier(_ rest: inout Substring) -> Bool {
        func natural() -> Int? {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 4, let value = Int(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            return value
        }
        guard let first = rest.first, first.isASCII, first.isNumber else { return false }
        var substitutes = false
        if first == "0" {
            rest = rest.dropFirst()
            // `00` starts a Punycode identifier, which no module or type name of the library's needs.
            guard rest.first != "0" else { return false }
            substitutes = true
        }
        repeat {
            while substitutes, let letter = rest.first, letter.isASCII, letter.isLetter {
                rest = rest.dropFirst()
                if letter.isUppercase { substitutes = false }
            }
            if rest.first == "0" {
                rest = rest.dropFirst()
                break
            }
            guard let count = natural(), count > 0, count <= rest.count else { return false }
            rest = rest.dropFirst(count)
        } while substitutes
        return true
    }

    /// What a frame says about the reader, in a debug build on Linux, from the line tables of its image
    /// (``ImageLineTables``): `nil` where they cannot say (an optimized build, whose
    /// frames have inlined code that only the symbolication's inline frames name; no line tables; an
    /// address they do not cover).
    ///
    /// An unoptimized build inlines nothing a reader's frame needs named apart, so the frame's location is
    /// the line table's row for its address, and its function the one its image's symbol table names.
    private static func lineTableLocation(
        of symbol: StackFrame.Symbol,
        at address: UInt,
        in image: StackFrame.Image
    ) -> FrameLocation? {
        #if DEBUG && os(Linux)
        guard address >= image.base, let table = ImageLineTables.shared(forImageAt: image.path),
            let row = table.location(at: UInt64(address - image.base), function: symbol.rawName)
        else { return nil }
        return frameLocation([
            LocatedFrame(
                name: symbol.name,
                imageName: image.name,
                path: row.path,
                line: row.line,
                column: row.column,
                isInExtension: isInExtension(symbol.rawName)
            )
        ])
        #else
        return nil
        #endif
    }

    /// What a frame says about the reader, from its symbolication with source locations and inline
    /// frames (innermost first): the line of the first one outside the library, the toolchain and macro
    /// expansions.
    private static func frameLocation(_ frames: [LocatedFrame]) -> FrameLocation {
        for frame in frames {
            guard frame.line > 0 else { continue }
            let path = frame.path
            // A macro's expansion (such as `#expect`'s) is a buffer of its own: its caller has the line.
            guard path.hasSuffix(".swift"), !path.contains("@__swiftmacro"), !isToolchainImage(frame.imageName)
            else { continue }
            if path.hasPrefix(librarySources + "/Contextual/") || path.hasPrefix(librarySources + "/ContextualTesting/")
            {
                continue
            }
            // A key's accessor (`get { self[Key.self] }`) or its key path thunk: the read is the caller.
            if frame.name.contains("ContextValues.") { continue }
            // In an optimized build, the accessor is inlined into the library's subscript or property
            // wrapper, which is inlined into the reader: a frame named after the library's read, placed
            // at the accessor's line. The read is the caller. A member of the user's extension of
            // `Context` is named alike, but is the reader.
            if isLibraryRead(frame.name), !frame.isInExtension { continue }
            let components = path.split(separator: "/")
            guard components.count >= 2 else { continue }
            let fileID = "\(components[components.count - 2])/\(components[components.count - 1])"
            let column = max(frame.column, 1)
            return .reader(SourceLocation(fileID: fileID, filePath: path, line: frame.line, column: column))
        }
        return .notTheReader
    }

    /// A frame's function and source location, from the symbolication or from a ``LineTable``.
    private struct LocatedFrame {
        /// The function's demangled name.
        var name: String
        /// The name of the function's image.
        var imageName: String
        /// The source file's path.
        var path: String
        /// The line, 1-based (0 when unknown).
        var line: Int
        /// The column, 1-based (0 when unknown).
        var column: Int
        /// Whether the function is a member of an extension declared in another module than its type's
        /// (``UnimplementedReadIssue/isInExtension(_:)``).
        var isInExtension: Bool

        init(name: String, imageName: String, path: String, line: Int, column: Int, isInExtension: Bool) {
            self.name = name
            self.imageName = imageName
            self.path = path
            self.line = line
            self.column = column
            self.isInExtension = isInExtension
        }

        /// The frame as the symbolication located it; `nil` without a symbol or a source location.
        init?(_ frame: SymbolicatedBacktrace.Frame) {
            guard let symbol = frame.symbol, let location = symbol.sourceLocation else { return nil }
            self.init(
                name: symbol.name,
                imageName: symbol.imageName,
                path: location.path,
                line: location.line,
                column: location.column,
                isInExtension: UnimplementedReadIssue.isInExtension(symbol.rawName)
            )
        }
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
