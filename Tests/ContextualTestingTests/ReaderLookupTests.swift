// How the reading line of an unimplemented read is found: few frames looked up, each once per address,
// in a debug build from line tables read once per process.

import Contextual
import Runtime
import Testing

@testable import ContextualTesting

@Suite("Finding the reading line")
struct ReaderLookupTests {
    @Test("The reader is found by looking up the debug information of a frame or two, not of the whole stack")
    func boundedLookups() {
        let line = #line + 1
        let first = UnimplementedReadIssue.reader()
        #expect(first.location?.line == line)
        #expect(first.location?.fileName == "ReaderLookupTests.swift")
        #expect(!first.isKeyPathWrite)
        #expect(first.framesLookedUp <= 2)
    }

    @Test("A frame looked up once is not looked up again: a second report from the same line looks up nothing")
    func keptByAddress() {
        var lookups: [Int] = []
        var lines: [Int?] = []
        let line = #line + 2
        for _ in 0..<2 {
            let reader = UnimplementedReadIssue.reader()
            lookups.append(reader.framesLookedUp)
            lines.append(reader.location?.line)
        }
        #expect(lines == [line, line])
        #expect(lookups.last == 0)
    }
}

#if DEBUG && os(Linux)
// MARK: - The line table

@Suite("Reading the line tables once per unit")
struct LineTableTests {
    @Test("The line table places each frame of this binary where the toolchain's symbolication does")
    func agreesWithSymbolication() throws {
        let backtrace = try Backtrace.capture()
        let symbolicated = try #require(
            NativeStack.symbolication.withLock { _ in backtrace.symbolicated(options: [.showSourceLocations]) }
        )
        let images = symbolicated.images
        let testBinary = try #require(
            symbolicated.frames.first?.symbol.flatMap { images[$0.imageIndex].path }
        )
        let table = try #require(ImageLineTables.shared(forImageAt: testBinary))
        var compared = 0
        for frame in symbolicated.frames {
            guard let symbol = frame.symbol, images[symbol.imageIndex].path == testBinary,
                let expected = symbol.sourceLocation,
                let address = UInt64(frame.captured.adjustedProgramCounter),
                let base = UInt64(images[symbol.imageIndex].baseAddress)
            else { continue }
            let found = table.location(at: address - base)
            #expect(found?.path == expected.path, "\(symbol.name)")
            #expect(found?.line == expected.line, "\(symbol.name)")
            #expect(found?.column == expected.column, "\(symbol.name)")
            compared += 1
        }
        // This test, its macro-made wrappers and their callers in this binary.
        #expect(compared >= 2)
    }
}
#endif
