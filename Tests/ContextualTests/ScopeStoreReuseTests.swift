import Contextual
import Testing

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
