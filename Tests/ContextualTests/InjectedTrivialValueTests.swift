import Testing

@testable import Contextual

/// A value of two words with no references: kept by `@Injected` in words, whose two halves a torn read
/// would tell apart.
private struct Pair: Sendable, Equatable {
    var first: Int
    var second: Int
}

/// Three words: too large to be kept in words.
private struct Triple: Sendable, Equatable {
    var first: Int
    var second: Int
    var third: Int
}

private enum PairKey: ContextKey {
    static var defaultValue: Pair { Pair(first: 0, second: 0) }
}

private enum TripleKey: ContextKey {
    static var defaultValue: Triple { Triple(first: 0, second: 0, third: 0) }
}

extension ContextValues {
    fileprivate var pair: Pair {
        get { self[PairKey.self] }
        set { self[PairKey.self] = newValue }
    }

    fileprivate var triple: Triple {
        get { self[TripleKey.self] }
        set { self[TripleKey.self] = newValue }
    }
}

private struct Reader: Sendable {
    @Injected(\.pair) var pair
    @Injected(\.verbosity) var verbosity
    @Injected(\.triple) var triple
    @Injected(\.requestID) var requestID
}

@Suite("@Injected with values of trivial types: kept in words, before and after updates")
struct InjectedTrivialValueTests {
    @Test("In an optimized build, values of at most two words with no references are kept in words; others are not")
    func whichValuesAreKeptInWords() {
        let reader = Context(name: "app").run { Reader() }
        #if DEBUG
        let optimized = false
        #else
        let optimized = true
        #endif
        #expect(reader.$pair.memo.keepsInline == optimized)
        #expect(reader.$verbosity.memo.keepsInline == optimized)
        #expect(!reader.$triple.memo.keepsInline)
        #expect(!reader.$requestID.memo.keepsInline)
    }

    @Test("Each read sees the value of the last update, for values kept in words or not, at any depth")
    func readsFollowUpdates() {
        let app = Context(name: "app") {
            $0.pair = Pair(first: 1, second: 1)
            $0.verbosity = 1
        }
        let leaf = app.child { $0.tags = ["a"] }.child { $0.databaseURL = "leaf" }
        let readers = [app.run { Reader() }, leaf.run { Reader() }]
        for reader in readers {
            // Warm: the second read keeps the value.
            #expect(reader.pair == Pair(first: 1, second: 1))
            #expect(reader.pair == Pair(first: 1, second: 1))
        }
        for index in 2...30 {
            app.update {
                $0.pair = Pair(first: index, second: index)
                $0.verbosity = index
                $0.triple = Triple(first: index, second: index, third: index)
                $0.requestID = "r\(index)"
            }
            for reader in readers {
                for _ in 0..<2 {
                    #expect(reader.pair == Pair(first: index, second: index))
                    #expect(reader.verbosity == index)
                    #expect(reader.triple == Triple(first: index, second: index, third: index))
                    #expect(reader.requestID == "r\(index)")
                }
            }
        }
        // An update elsewhere in the tree moves the generation: the kept words are read again, the same.
        app.child { $0.verbosity = -1 }.update { $0.verbosity = -2 }
        #expect(readers[1].verbosity == 30)
        #expect(readers[1].pair == Pair(first: 30, second: 30))
    }

    @Test("A read racing updates never sees half of one value and half of another, and ends on the last")
    func noTornReads() async {
        let app = Context(name: "app") { $0.pair = Pair(first: 0, second: 0) }
        let leaf = app.child { $0.tags = [] }.child { $0.verbosity = 1 }
        let reader = leaf.run { Reader() }
        let updates = 2_000
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for index in 1...updates { app.update { $0.pair = Pair(first: index, second: -index) } }
                return true
            }
            for _ in 0..<3 {
                group.addTask {
                    // Bounded: a read that never sees the last update fails the test instead of hanging it.
                    var last = 0
                    var reads = 0
                    while last < updates {
                        let pair = reader.pair
                        if pair.second != -pair.first || pair.first < last { return false }
                        last = pair.first
                        reads += 1
                        if reads > 50_000_000 { return false }
                        if reads % 64 == 0 { await Task.yield() }
                    }
                    return true
                }
            }
            for await whole in group { #expect(whole) }
        }
        #expect(reader.pair == Pair(first: updates, second: -updates))
    }
}
