import Contextual
import Testing

// The ```swift blocks of Articles/Performance.md, verbatim, and what their prose and comments claim that
// a test can check (timings are checked by the benchmarks, in Benchmarks/).

@Suite("Performance")
struct PerformanceTests {
    @Test("A context 64 levels deep reads what the root sets")
    func depth() {
        var deep = Context(name: "root") { $0.config.verbose = true }
        for level in 1...64 {
            deep = deep.child(name: "level \(level)")
        }
        let verbose = deep[\.config].verbose  // true: at most two table probes, as at the root
        let depth = deep.depth  // 64

        #expect(verbose)
        #expect(depth == 64)
        #expect(deep.chainNames.first == "level 64")
        #expect(deep.chainNames.last == "root")
    }

    @Test("After an update, the changed context and its descendants read the new value; new children too")
    func afterUpdate() {
        let root = Context(name: "root") { $0.requestID = "before" }
        let child = root.child(name: "child")
        struct Reader {
            @Injected(\.requestID) var requestID
        }
        let reader = child.run { Reader() }
        #expect(reader.requestID == "before")
        root.update { $0.requestID = "after" }
        #expect(child[\.requestID] == "after")
        #expect(reader.requestID == "after")
        #expect(root.child(name: "new")[\.requestID] == "after")
    }

    @Test("A chain of 100,000 contexts is released one link at a time, without overflowing the stack")
    func longChainRelease() {
        weak var weakRoot: Context?
        do {
            var node = Context(name: "root")
            weakRoot = node
            for _ in 0..<100_000 { node = node.child(name: nil) }
            #expect(node.depth == 100_000)
        }
        #expect(weakRoot == nil)
    }
}
