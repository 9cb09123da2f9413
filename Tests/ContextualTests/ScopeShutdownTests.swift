import Contextual
import Dispatch
import Testing

@Suite("Scope shutdown")
struct ScopeShutdownTests {
    @Test("shutdown() shuts down what the scope built, in reverse order of creation, once")
    func reverseOrder() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(id: "transaction", log: log) }
            $0.provide(Cursor.self, lifetime: .scoped) { scope in
                Cursor(transaction: try scope.require(Transaction.self), log: log)
            }
        }
        let request = app.scope(name: "request")
        _ = try request.require(Cursor.self)  // builds the transaction first, then the cursor
        try await request.shutdown()
        #expect(log.all == ["shutdown cursor", "shutdown transaction"])
        try await request.shutdown()
        #expect(log.all.count == 2)
        #expect(request.isEnded)
    }

    @Test("A provider whose objects change class between builds shuts down exactly those that adopt ScopeShutdown")
    func objectsOfChangingClasses() async throws {
        let log = Collector<String>()
        let built = Collector<Int>()
        // Each class in runs and in turns: the conformance remembered for the first class that adopts
        // ScopeShutdown (closing) must not be used for another (committing, built twice in a row), and a
        // class that does not adopt it (plain) is not shut down.
        let kinds = ["closing", "closing", "committing", "committing", "plain", "plain", "closing", "committing"]
        let app = Context(name: "app") {
            $0.provide(Job.self, lifetime: .scoped) { _ -> Job in
                built.append(1)
                switch kinds[built.all.count - 1] {
                case "closing": return ClosingJob(name: "closing", log: log)
                case "committing": return CommittingJob(name: "committing", log: log)
                default: return Job(name: "plain", log: log)
                }
            }
        }
        for _ in kinds {
            let request = app.scope(name: "request")
            _ = try request.require(Job.self)
            try await request.shutdown()
        }
        #expect(
            log.all == [
                "closing closed", "closing closed", "committing committed", "committing committed",
                "closing closed", "committing committed",
            ]
        )
    }

    @Test("Errors thrown on shutdown are collected and reported, and every object is still shut down")
    func errorsCollected() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in
                Transaction(id: "t", log: log, failure: TestFailure(reason: "rollback failed"))
            }
            $0.provide(Cursor.self, lifetime: .scoped) { scope in
                Cursor(transaction: try scope.require(Transaction.self), log: log, failure: TestFailure(reason: "busy"))
            }
        }
        let request = app.scope(name: "request 7")
        _ = try request.require(Cursor.self)
        let error = await #expect(throws: ContextError.self) { try await request.shutdown() }
        #expect(error?.code == .shutdownFailed)
        #expect(error?.underlyingErrors.compactMap { ($0 as? TestFailure)?.reason } == ["busy", "rollback failed"])
        #expect(error?.message.contains("'request 7' failed for 2 of 2 objects") == true)
        // Every object failed: there are no others to speak of.
        #expect(error?.message.contains("The others were shut down") == false)
        #expect(log.all == ["shutdown cursor", "shutdown t"])
    }

    @Test("An ended scope builds nothing more; what was given to it directly stays readable")
    func resolveAfterEnd() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { _ in Transaction(id: "t", log: log) }
        }
        let request = app.scope(name: "request") { $0.provide(Database(url: "db")) }
        let step = request.child(name: "step")
        try await request.shutdown()
        #expect(try request.require(Database.self).url == "db")  // given directly: stays readable
        let owned = #expect(throws: ContextError.self) { try step.require(Transaction.self) }
        #expect(owned?.code == .scopeEnded)
        #expect(request[\.requestID] == "none")  // values stay readable
    }

    @Test("withScope shuts the scope down after its body, also when the body throws, losing neither error")
    func withScopeShutsDown() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .scoped) { scope in
                Transaction(id: scope[\.requestID], log: log, failure: TestFailure(reason: "close failed"))
            }
        }
        let error = await #expect(throws: ContextError.self) {
            try await app.withScope(name: "request") {
                $0.requestID = "r1"
            } body: { scope in
                _ = try scope.require(Transaction.self)
                throw TestFailure(reason: "handler failed")
            }
        }
        #expect(log.all == ["shutdown r1"])
        #expect(error?.code == .shutdownFailed)
        #expect(
            error?.underlyingErrors.compactMap { ($0 as? TestFailure)?.reason } == ["handler failed", "close failed"]
        )

        let value = try await app.withScope(name: "ok") { scope in scope.isScope }
        #expect(value)
    }

    /// Serves requests on an actor, as a server's connection handler may, on an executor that counts the
    /// jobs it is given: each hop back to the actor is one.
    actor RequestServer {
        let app: Context
        let executor = CountingExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        init(app: Context) { self.app = app }

        /// Ends a request's scope on this actor; returns whether it ended and how many times the actor
        /// was entered again meanwhile.
        func serve(_ id: String) async throws -> (ended: Bool, hops: Int) {
            let request = app.scope(name: "request \(id)")
            _ = try request.require(Connection.self)
            let before = executor.jobs
            try await request.shutdown()
            return (request.isEnded, executor.jobs - before)
        }
    }

    @Test("A scope ended from an actor is ended there, without leaving the actor and coming back")
    func shutdownFromAnActorStaysOnIt() async throws {
        let app = Context(name: "app") {
            // Nothing to shut down: a hop would be the shutdown's own.
            $0.provide(Connection.self, lifetime: .scoped) { scope in Connection(url: scope[\.requestID]) }
        }
        let server = RequestServer(app: app)
        for id in ["1", "2"] {
            let (ended, hops) = try await server.serve(id)
            #expect(ended)
            #expect(hops == 0)
        }
    }

    @Test("A singleton that adopts ScopeShutdown is shut down with the context that registered it")
    func singletonShutDownWithRegistrar() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .singleton) { _ in Transaction(id: "pool", log: log) }
        }
        _ = try app.child().require(Transaction.self)
        try await app.shutdown()
        #expect(log.all == ["shutdown pool"])
    }
}

/// A scoped object built from another, to check the order of shutdown.
final class Cursor: ScopeShutdown {
    let transaction: Transaction
    let log: Collector<String>
    let failure: (any Error)?

    init(transaction: Transaction, log: Collector<String>, failure: (any Error)? = nil) {
        self.transaction = transaction
        self.log = log
        self.failure = failure
    }

    func shutdown() async throws {
        log.append("shutdown cursor")
        if let failure { throw failure }
    }
}

// MARK: - Objects of changing classes

/// A job that has nothing to shut down; its subclasses do, each in its own way, so that a provider
/// whose objects change class between builds must open each one with its own class's conformance.
private class Job: @unchecked Sendable {
    // `@unchecked`: a non-final class (its subclasses are the point), whose only stored properties are
    // `let`s of `Sendable` types; the subclasses add none.
    let name: String
    let log: Collector<String>
    init(name: String, log: Collector<String>) {
        self.name = name
        self.log = log
    }
}

/// A job that closes on shutdown.
private final class ClosingJob: Job, ScopeShutdown, @unchecked Sendable {
    func shutdown() async throws { log.append("\(name) closed") }
}

/// Another job that adopts ScopeShutdown, with its own conformance.
private final class CommittingJob: Job, ScopeShutdown, @unchecked Sendable {
    func shutdown() async throws { log.append("\(name) committed") }
}

// MARK: - CountingExecutor

/// A serial executor that runs its jobs on a dispatch queue and counts them.
final class CountingExecutor: SerialExecutor {
    private let queue = DispatchQueue(label: "counting executor")
    private let count = Counter()

    /// The jobs enqueued so far.
    var jobs: Int { count.count }

    func enqueue(_ job: consuming ExecutorJob) {
        count.increment()
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}
