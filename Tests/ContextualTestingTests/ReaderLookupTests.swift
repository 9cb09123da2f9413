// How the reading line of an unimplemented read is found: few frames looked up, each once per address.

import Contextual
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
