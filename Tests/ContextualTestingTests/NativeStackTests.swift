// How an unimplemented read's stack is captured and named: the C library's unwinder and each image's
// symbol table, agreeing with the toolchain's backtracer on what they both see.

import Contextual
import Foundation
import Runtime
import Synchronization
import Testing

@testable import ContextualTesting

@Suite("Capturing and naming the reading thread's stack")
struct NativeStackTests {
    @Test("The first frame is the caller's, named from the test binary's symbol table")
    func namesTheCaller() throws {
        let frames = capturedHere()
        let first = try #require(frames.first)
        // An optimized build may name a specialization of it (`specialized NativeStackTests.capturedHere()`).
        #expect(first.symbol?.name.hasSuffix("NativeStackTests.capturedHere()") == true)
        #expect(first.symbol?.rawName.hasPrefix("$s22ContextualTestingTests") == true)
        let image = try #require(first.image)
        #expect(image.path.hasPrefix("/"))
        #expect(FileManager.default.fileExists(atPath: image.path))
        #expect(image.path.hasSuffix("/" + image.name))
        #expect(frames.dropFirst().first?.image == image)
    }

    @Test("Where the C library cannot unwind, the Runtime module's backtracer gives the same frames from the caller")
    func throughTheRuntime() throws {
        let (native, runtime) = Self.bothWaysHere()
        let first = try #require(runtime.first)
        #expect(first.symbol?.name.hasSuffix("NativeStackTests.bothWaysHere()") == true)
        #expect(first.image?.path == native.first?.image?.path)
        #expect(native.first?.symbol?.name == first.symbol?.name)
        #expect(runtime.allSatisfy { $0.address != 0 })
        #expect(NativeStack.captureThroughRuntime(limit: 1).count == 1)
        #expect(NativeStack.captureThroughRuntime(limit: 0).isEmpty)
    }

    #if os(Linux)
    @Test("Each frame of the test binary has the address, image and name the toolchain's backtracer gives it")
    func agreesWithTheToolchain() throws {
        let (native, toolchain) = bothHere()
        let symbolicated = try #require(NativeStack.symbolication.withLock { _ in toolchain.symbolicated(options: []) })
        let images = symbolicated.images
        // The toolchain's frames from the same caller on: the first of each is in `bothHere`, at two calls.
        let theirs = Array(symbolicated.frames.dropFirst())
        let ours = Array(native.dropFirst())
        var compared = 0
        // The frames of the test binary at the top of both stacks (past them, the toolchain's backtracer
        // also shows the suspended callers of asynchronous frames).
        for (mine, their) in zip(ours, theirs) {
            guard let symbol = their.symbol, let path = images[symbol.imageIndex].path,
                let base = UInt64(images[symbol.imageIndex].baseAddress), path == mine.image?.path,
                !symbol.imageName.hasPrefix("lib")
            else { break }
            #expect(UInt64(their.captured.adjustedProgramCounter) == UInt64(mine.address))
            #expect(UInt64(mine.image?.base ?? 0) == base)
            #expect(mine.symbol?.rawName == symbol.rawName)
            #expect(mine.symbol?.name == symbol.name)
            compared += 1
        }
        #expect(compared >= 2)
    }

    @Test("An image's symbols are read from its symbol table: none for a file that is not ELF, or has none")
    func symbolTables() throws {
        let directory = FileManager.default.temporaryDirectory
        let notELF = directory.appendingPathComponent("contextual-not-elf-\(UUID().uuidString)")
        try Data("not an image".utf8).write(to: notELF)
        defer { try? FileManager.default.removeItem(at: notELF) }
        #expect(ImageSymbols(imageAt: notELF.path) == nil)
        #expect(ImageSymbols(imageAt: directory.appendingPathComponent("contextual-missing-\(UUID())").path) == nil)
        // An image with a loadable segment at the start of the file, and no sections: mapped, no symbols.
        func le(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        var image = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1] + [UInt8](repeating: 0, count: 9)
        image += le(2, 2) + le(0x3E, 2) + le(1, 4) + le(0, 8) + le(64, 8) + le(0, 8)
        image += le(0, 4) + le(64, 2) + le(56, 2) + le(1, 2) + le(64, 2) + le(0, 2) + le(0, 2)
        image += le(1, 4) + le(5, 4) + le(0, 8) + le(0, 8) + le(0, 8) + le(0x1000, 8) + le(0x1000, 8) + le(0x1000, 8)
        let noSections = directory.appendingPathComponent("contextual-no-sections-\(UUID().uuidString)")
        try Data(image).write(to: noSections)
        defer { try? FileManager.default.removeItem(at: noSections) }
        #expect(MappedImage(imageAt: noSections.path)?.sections.isEmpty == true)
        #expect(ImageSymbols(imageAt: noSections.path) == nil)
        // Section headers said to lie past the end of the file.
        var pastTheEnd = image
        pastTheEnd.replaceSubrange(0x28..<0x30, with: le(image.count, 8))
        pastTheEnd.replaceSubrange(0x3C..<0x3E, with: le(1, 2))
        let sectionsPastTheEnd = directory.appendingPathComponent("contextual-past-the-end-\(UUID().uuidString)")
        try Data(pastTheEnd).write(to: sectionsPastTheEnd)
        defer { try? FileManager.default.removeItem(at: sectionsPastTheEnd) }
        #expect(MappedImage(imageAt: sectionsPastTheEnd.path) == nil)
    }

    @Test("A look-up names each address once, and an address no function covers has no name")
    func lookUps() throws {
        let frame = try #require(capturedHere().first)
        let image = try #require(frame.image)
        let symbols = try #require(ImageSymbols.shared(forImageAt: image.path))
        let address = UInt64(frame.address - image.base)
        let names = symbols.names(at: [address, address, 0])
        #expect(names.count == 2)
        #expect(names[address] == .some(frame.symbol?.rawName))
        #expect(names[0] == .some(nil))
        #expect(symbols.names(at: [address])[address] == .some(frame.symbol?.rawName))
    }

    @Test("In a debug build, the reader's line comes from the line tables, not the toolchain's symbolication")
    func noToolchainSymbolication() {
        let line = #line + 1
        let reader = UnimplementedReadIssue.reader()
        #expect(reader.location?.line == line)
        #if DEBUG
        #expect(reader.framesSymbolicatedByToolchain == 0)
        #endif
    }
    #endif

    // MARK: - Helpers

    /// The stack captured from this function. The count after the capture keeps its call from being a
    /// tail call, which an optimized build would make, leaving no frame of this function on the stack.
    @inline(never)
    private func capturedHere() -> [StackFrame] {
        let frames = NativeStack.capture { _ in true }
        Self.captures.add(1, ordering: .relaxed)
        return frames
    }

    /// The stack captured from this function both ways: by ``NativeStack/capture(limit:namedFromSymbolTable:)``
    /// and by the Runtime module's backtracer alone.
    @inline(never)
    private static func bothWaysHere() -> (native: [StackFrame], runtime: [StackFrame]) {
        let native = NativeStack.capture { _ in true }
        let runtime = NativeStack.captureThroughRuntime()
        captures.add(1, ordering: .relaxed)
        return (native, runtime)
    }

    /// How many captures ``capturedHere()`` made.
    private static let captures = Atomic<Int>(0)

    /// The stack captured natively and by the toolchain, from this function.
    @inline(never)
    private func bothHere() -> ([StackFrame], Backtrace) {
        let native = NativeStack.capture { _ in true }
        let toolchain = try! Backtrace.capture()
        return (native, toolchain)
    }
}
