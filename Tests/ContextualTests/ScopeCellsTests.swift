import Testing

@testable import Contextual

/// A scope finds each scoped object's cell by its provider: the first inline, the next ones in a list
/// searched by identity, and past ``ScopeStore/Cells/searchedLength`` of them through a dictionary.
@Suite("A scope's cells, however many scoped objects it builds")
struct ScopeCellsTests {
    /// One scoped object per type, made of `Element`: distinct types, so distinct providers.
    final class Part<Element>: ScopeShutdown {
        let log: Collector<String>
        init(log: Collector<String>) { self.log = log }
        func shutdown() async throws { log.append("\(Element.self)") }
    }

    /// What a test does with each of its types: register a scoped `Part`, resolve it, compare.
    struct PartType: Sendable {
        let name: String
        let register: @Sendable (inout ContextValues, Collector<String>) -> Void
        let resolve: @Sendable (Context) throws -> AnyObject

        static func of<Element>(_ type: Element.Type) -> PartType {
            PartType(
                name: "\(Element.self)",
                register: { values, log in
                    values.provide(Part<Element>.self, lifetime: .scoped) { _ in Part(log: log) }
                },
                resolve: { try $0.require(Part<Element>.self) }
            )
        }
    }

    /// 24 types: more than a searched list holds (16 after the first).
    static let types: [PartType] = [
        .of(Int.self), .of(Int8.self), .of(Int16.self), .of(Int32.self), .of(Int64.self), .of(UInt.self),
        .of(UInt8.self), .of(UInt16.self), .of(UInt32.self), .of(UInt64.self), .of(Float.self), .of(Double.self),
        .of(Bool.self), .of(String.self), .of(Character.self), .of(Substring.self), .of([Int].self),
        .of([String].self), .of(Set<Int>.self), .of([Int: Int].self), .of(Int?.self), .of(String?.self),
        .of(Unicode.Scalar.self), .of(Range<Int>.self),
    ]

    @Test(
        "Each scoped object is built once per scope and found again, before and past the searched list",
        arguments: [1, 2, 17, 18, 24]
    )
    func eachObjectOncePerScope(count: Int) async throws {
        #expect(ScopeStore.Cells.searchedLength == 16)
        let log = Collector<String>()
        let types = Array(Self.types.prefix(count))
        let app = Context(name: "app") { values in for type in types { type.register(&values, log) } }
        let request = app.scope(name: "request")
        let first = try types.map { try $0.resolve(request) }
        // Resolved again in the reverse order: each cell is found, none built anew.
        let again = try types.reversed().map { try $0.resolve(request) }.reversed()
        #expect(zip(first, again).allSatisfy { $0 === $1 })
        #expect(Set(first.map(ObjectIdentifier.init)).count == count)
        #expect(request.scopeStore.cellIdentities.cells.count == count)
        // Another scope builds its own.
        let other = app.scope(name: "other")
        let others = try types.map { try $0.resolve(other) }
        #expect(zip(first, others).allSatisfy { $0 !== $1 })
        // Each is shut down once, in reverse order of creation.
        try await request.shutdown()
        #expect(log.all == types.reversed().map(\.name))
        try await other.shutdown()
        #expect(log.all.count == 2 * count)
    }

    @Test("Scopes made one after another on a thread, each reusing the last one's store, build their own objects")
    func reusedStoresStartEmpty() throws {
        let log = Collector<String>()
        let types = Self.types
        let app = Context(name: "app") { values in for type in types { type.register(&values, log) } }
        // Every object is kept, so that no address is reused and identities compare across rounds.
        var kept: [AnyObject] = []
        for round in 0..<3 {
            // Each scope ends at the end of its round, on this thread: the next one takes its store's buffer.
            if round > 0 { #expect(ThreadSlot.spareScopeStoreBuffer.word != 0) }
            let scope = app.scope(name: "request")
            let objects = try types.map { try $0.resolve(scope) }
            let again = try types.map { try $0.resolve(scope) }
            #expect(zip(objects, again).allSatisfy { $0 === $1 })
            kept += objects
        }
        #expect(Set(kept.map(ObjectIdentifier.init)).count == 3 * types.count)
    }
}
