import Testing

@testable import Contextual

/// A context that ended hands its scope store's buffer to the next context of its thread that builds (a
/// scope per request then allocates no store): the next scope must start with nothing of the last one's.
@Suite("Scope stores reused across scopes")
struct ScopeStoreReuseTests {
    /// Builds a scope's transaction and drops the scope without shutting it down, on this thread, then
    /// builds the next scope's: what the first built, and the second.
    private func twoScopesInARow(
        of app: Context
    ) throws -> (first: String, firstReleased: Bool, second: Context, secondID: String) {
        weak var firstTransaction: Transaction?
        var firstID = ""
        do {
            let first = app.scope(name: "request 1")
            let transaction = try first.require(Transaction.self)
            firstTransaction = transaction
            firstID = transaction.id
        }
        // The first scope ended here, on this thread: its store's buffer is the thread's spare.
        let released = firstTransaction == nil
        let second = app.scope(name: "request 2")
        let secondID = try second.require(Transaction.self).id
        return (firstID, released, second, secondID)
    }

    @Test("A scope made after another ended starts with nothing of the other's, and shuts down only its own")
    func nextScopeStartsEmpty() async throws {
        let log = Collector<String>()
        let made = Collector<Int>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in
                made.append(1)
                return Transaction(id: "transaction \(made.all.count)", log: log)
            }
        }
        let (firstID, firstReleased, second, secondID) = try twoScopesInARow(of: app)
        #expect(firstID == "transaction 1")
        #expect(firstReleased)  // a scope that ends without a shutdown releases what it built
        #expect(secondID == "transaction 2")
        // Its store lists only its own object.
        let built = second.wiringDescription.split(separator: "\n").filter { $0.contains("built here:") }
        #expect(built.map { String($0.drop { $0 == " " }) } == ["built here: Transaction (scoped)"])
        #expect(!second.isEnded)
        try await second.shutdown()
        #expect(log.all == ["shutdown transaction 2"])
        #expect(second.isEnded)
    }
}

/// The cell of a scope's first scoped object stays with the store's buffer, emptied, for the next scope
/// that builds the same provider's object (a scope per request then allocates no cell).
///
/// A cell is kept only when nothing but the store holds it: one a resolver still holds is not reused.
@Suite("Scoped objects' cells reused across scopes")
struct ScopedCellReuseTests {
    @Test("The next scope on a thread builds the same provider's object in the last scope's cell, anew")
    func nextScopeReusesTheCell() throws {
        let made = Collector<Int>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in
                made.append(1)
                return Transaction(id: "transaction \(made.all.count)", log: Collector<String>())
            }
            $0.provide(Connection.self, lifetime: .scoped) { _ in Connection(url: "db://") }
        }
        weak var firstTransaction: Transaction?
        var firstCell: ObjectIdentifier?
        do {
            let first = app.scope(name: "request 1")
            firstTransaction = try first.require(Transaction.self)
            firstCell = first.scopeStore.cellIdentities.cells.first
        }
        // The first scope ended on this thread: its object is gone, its cell is the spare of its buffer,
        // which is the thread's spare (so the cell is alive, and its identity is its own).
        #expect(firstTransaction == nil)
        #expect(threadsSpareCell() == firstCell)
        let second = app.scope(name: "request 2")
        #expect(try second.require(Transaction.self).id == "transaction 2")
        #expect(second.scopeStore.cellIdentities.cells == [firstCell].compactMap { $0 })
        #expect(second.scopeStore.cellIdentities.spare == nil)
    }

    @Test("A cell a resolver still holds when its scope ends is not kept for the next scope")
    func heldCellIsNotReused() async throws {
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in
                Transaction(id: "held", log: Collector<String>())
            }
        }
        let request = app.scope(name: "request")
        _ = try request.require(Transaction.self)
        let cell = try #require(request.scopeStore.cellHeldForTesting)
        try await request.shutdown()
        // (Its store's buffer may keep another provider's spare, from the scope that used it before.)
        #expect(request.scopeStore.cellIdentities.spare != ObjectIdentifier(cell))
        withExtendedLifetime(cell) {}
    }

    /// The identity of the spare cell of the running thread's spare store buffer, if any.
    private func threadsSpareCell() -> ObjectIdentifier? {
        let word = ThreadSlot.spareScopeStoreBuffer.word
        guard word != 0 else { return nil }
        let buffer = ReferenceWord.instance(word, as: LockedBuffer<ScopeStore.State>.self)
        return Locked(buffer: buffer).withLock { $0.spareCell.map { ObjectIdentifier($0.cell) } }
    }

    @Test("A spare cell is not given to another provider's object")
    func spareCellIsKeptForItsProvider() throws {
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in
                Transaction(id: "transaction", log: Collector<String>())
            }
            $0.provide(Connection.self, lifetime: .scoped) { _ in Connection(url: "db://") }
        }
        var firstCell: ObjectIdentifier?
        do {
            let first = app.scope(name: "request 1")
            _ = try first.require(Transaction.self)
            firstCell = first.scopeStore.cellIdentities.cells.first
        }
        let second = app.scope(name: "request 2")
        #expect(try second.require(Connection.self).url == "db://")
        let identities = second.scopeStore.cellIdentities
        #expect(identities.cells.count == 1)
        #expect(identities.cells.first != firstCell)
        #expect(identities.spare == firstCell)  // still kept for a Transaction
        #expect(try second.require(Transaction.self).id == "transaction")
        #expect(second.scopeStore.cellIdentities.spare == nil)
    }

    @Test("A scope's shutdown releases its objects even though it keeps their cell for the next scope")
    func shutdownReleasesObjectsOfAKeptCell() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(id: "kept cell", log: log) }
        }
        let request = app.scope(name: "request")
        weak let transaction = try request.require(Transaction.self)
        #expect(transaction != nil)
        let cell = try #require(request.scopeStore.cellIdentities.cells.first)
        try await request.shutdown()
        #expect(log.all == ["shutdown kept cell"])
        // The scope is still here; its cell is its store's spare, empty: nothing keeps the object.
        #expect(transaction == nil)
        #expect(request.scopeStore.cellIdentities.spare == cell)
    }
}
