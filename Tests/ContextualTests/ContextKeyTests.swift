import Testing

@testable import Contextual

// Each test uses keys of its own: defaults are cached per key per process, and suites run in parallel.

private let lazyDefaultCounter = Counter()
private enum LazyDefaultKey: ContextKey {
    static var defaultValue: Int {
        lazyDefaultCounter.increment()
        return 42
    }
}

private let racedDefaultCounter = Counter()
private enum RacedDefaultKey: ContextKey {
    static var defaultValue: [Int] {
        racedDefaultCounter.increment()
        return Array(0..<100)
    }
}

private enum UnsetKey: ContextKey {
    static var defaultValue: String { "the default" }
}

private enum DefaultReadingOtherKey: ContextKey {
    static var defaultValue: String { "derived from \(Context.current[UnsetKey.self])" }
}

private let resetDefaultCounter = Counter()
private enum ResetDefaultKey: ContextKey {
    static var defaultValue: Int {
        resetDefaultCounter.increment()
        return resetDefaultCounter.count
    }
}

@Suite("Context keys and their defaults")
struct ContextKeyTests {
    @Test("A key that no context sets reads as its default value")
    func unsetKeyReadsDefault() {
        let root = Context(name: "app") { $0.requestID = "set" }
        let child = root.child { $0.verbosity = 3 }
        #expect(child[UnsetKey.self] == "the default")
        #expect(root[UnsetKey.self] == "the default")
        #expect(Context.root[UnsetKey.self] == "the default")
    }

    @Test("A default is computed lazily, on first read, and only once per process")
    func defaultIsLazyAndComputedOnce() {
        let root = Context(name: "app") { $0.requestID = "r" }
        let child = root.child { $0.verbosity = 1 }
        _ = child[\.requestID]
        #expect(lazyDefaultCounter.count == 0)
        #expect(child[LazyDefaultKey.self] == 42)
        #expect(lazyDefaultCounter.count == 1)
        #expect(root[LazyDefaultKey.self] == 42)
        #expect(Context(name: "other")[LazyDefaultKey.self] == 42)
        #expect(lazyDefaultCounter.count == 1)
    }

    @Test("Concurrent first reads of a default compute it exactly once")
    func concurrentFirstReadsComputeOnce() async {
        let root = Context(name: "app")
        await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<64 {
                group.addTask { root[RacedDefaultKey.self] }
            }
            for await value in group {
                #expect(value == Array(0..<100))
            }
        }
        #expect(racedDefaultCounter.count == 1)
    }

    @Test("The test-only reset forgets one key's default, which the next read computes again")
    func resetForTestingRecomputes() {
        let root = Context(name: "app")
        #expect(root[ResetDefaultKey.self] == 1)
        #expect(root[ResetDefaultKey.self] == 1)
        DefaultValueStore.shared.resetForTesting(ResetDefaultKey.self)
        #expect(root[ResetDefaultKey.self] == 2)
        #expect(resetDefaultCounter.count == 2)
    }

    @Test("A default may read other keys through the current context")
    func defaultMayReadOtherKeys() {
        let root = Context(name: "app")
        #expect(root[DefaultReadingOtherKey.self] == "derived from the default")
    }

    @Test("Values read through a key path and through the key type agree")
    func keyPathAndKeyTypeAgree() {
        let root = Context { $0.tags = ["a"] }
        #expect(root[\.tags] == ["a"])
        #expect(root[TagsKey.self] == ["a"])
    }
}
