// What the server builds: the database (a singleton with an async factory), a unit of work per request
// (scoped, shut down when the request's response is written) and an audit of those shutdowns.

import Contextual
import Foundation
import GRDB
import Hummingbird
import Synchronization

/// A to-do item, stored in SQLite.
///
/// ```swift
/// let todo = Todo(id: nil, title: "write the docs", requestID: "r-1")
/// ```
public struct Todo: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord, ResponseCodable {
    /// The row ID, `nil` until inserted.
    public var id: Int64?
    /// What to do.
    public var title: String
    /// The request that created it.
    public var requestID: String

    /// Makes an item.
    ///
    /// ```swift
    /// let todo = Todo(id: nil, title: "ship", requestID: "r-1")
    /// ```
    public init(id: Int64?, title: String, requestID: String) {
        self.id = id
        self.title = title
        self.requestID = requestID
    }

    /// The table GRDB reads and writes.
    public static let databaseTableName = "todo"

    /// Keeps the row ID SQLite assigned.
    ///
    /// ```swift
    /// try todo.insert(db)  // todo.id is set
    /// ```
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// The database: one SQLite queue for the app, opened and migrated by an async factory at boot, closed
/// when the app context shuts down.
///
/// ```swift
/// let store = try await TodoStore.open(path: nil)  // in memory
/// ```
public final class TodoStore: ScopeShutdown {
    let queue: DatabaseQueue

    init(queue: DatabaseQueue) { self.queue = queue }

    /// Opens the database at `path` (in memory when `nil`) and creates its table.
    ///
    /// ```swift
    /// let store = try await TodoStore.open(path: "todos.sqlite")
    /// ```
    public static func open(path: String?) async throws -> TodoStore {
        let queue = try path.map { try DatabaseQueue(path: $0) } ?? DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrator.registerMigration("create todo") { db in
            try db.create(table: Todo.databaseTableName, ifNotExists: true) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("title", .text).notNull()
                table.column("requestID", .text).notNull()
            }
        }
        try migrator.migrate(queue)
        return TodoStore(queue: queue)
    }

    /// Inserts an item and returns it with its row ID.
    ///
    /// ```swift
    /// let saved = try await store.insert(Todo(id: nil, title: "ship", requestID: "r-1"))
    /// ```
    public func insert(_ todo: Todo) async throws -> Todo {
        try await queue.write { db in
            var todo = todo
            try todo.insert(db)
            return todo
        }
    }

    /// Every item, oldest first.
    ///
    /// ```swift
    /// let todos = try await store.all()
    /// ```
    public func all() async throws -> [Todo] {
        try await queue.read { db in try Todo.order(Column("id")).fetchAll(db) }
    }

    /// Closes the database.
    ///
    /// ```swift
    /// try await app.shutdown()  // closes the store the app built
    /// ```
    public func shutdown() async throws { try queue.close() }
}

/// Counts the units of work built and shut down: the tests and the load test check that each was shut
/// down exactly once. Counters only, so that it stays the same size however many requests it sees.
///
/// ```swift
/// let audit = ScopeAudit()
/// let app = makeAppContext(config: ServerConfig(), audit: audit)
/// ```
public final class ScopeAudit: Sendable {
    private struct Counts {
        var built = 0
        var shutDown = 0
        var repeated = 0
        var lastShutDown = "none"
    }
    private let counts = Mutex(Counts())

    /// Makes an empty audit.
    ///
    /// ```swift
    /// let audit = ScopeAudit()
    /// ```
    public init() {}

    func recordBuilt() { counts.withLock { $0.built += 1 } }

    func recordShutdown(of requestID: String, repeated: Bool) {
        counts.withLock {
            if repeated {
                $0.repeated += 1
            } else {
                $0.shutDown += 1
                $0.lastShutDown = requestID
            }
        }
    }

    /// How many units of work were built.
    ///
    /// ```swift
    /// audit.built == audit.shutDown  // every one shut down
    /// ```
    public var built: Int { counts.withLock { $0.built } }

    /// How many units of work were shut down (the first time each).
    ///
    /// ```swift
    /// let done = audit.shutDown
    /// ```
    public var shutDown: Int { counts.withLock { $0.shutDown } }

    /// How many shutdowns came to a unit of work already shut down: 0 when each was shut down once.
    ///
    /// ```swift
    /// #expect(audit.repeatedShutdowns == 0)
    /// ```
    public var repeatedShutdowns: Int { counts.withLock { $0.repeated } }

    /// The request ID of the unit of work shut down last.
    ///
    /// ```swift
    /// audit.lastShutDown  // "r-1" after serving request r-1 alone
    /// ```
    public var lastShutDown: String { counts.withLock { $0.lastShutDown } }
}

/// A request's unit of work: built once per request scope, from the scope's values, and shut down when
/// the request's response has been written.
///
/// ```swift
/// $0.provide(UnitOfWork.self, lifetime: .scoped) { request in
///     UnitOfWork(requestID: request[\.requestID], store: try request.require(TodoStore.self),
///                audit: try request.require(ScopeAudit.self))
/// }
/// ```
public final class UnitOfWork: ScopeShutdown {
    /// The request it serves.
    public let requestID: String
    let store: TodoStore
    let audit: ScopeAudit
    private let shutDown = Atomic(false)
    private let commitFails = Atomic(false)

    /// Makes a unit of work for a request.
    ///
    /// ```swift
    /// let work = UnitOfWork(requestID: "r-1", store: store, audit: audit)
    /// ```
    public init(requestID: String, store: TodoStore, audit: ScopeAudit) {
        self.requestID = requestID
        self.store = store
        self.audit = audit
        audit.recordBuilt()
    }

    /// Whether ``shutdown()`` ran.
    ///
    /// ```swift
    /// work.isShutDown  // false while the request is served
    /// ```
    public var isShutDown: Bool { shutDown.load(ordering: .acquiring) }

    /// Adds an item on behalf of this request.
    ///
    /// ```swift
    /// let todo = try await work.add(title: "ship")
    /// ```
    public func add(title: String) async throws -> Todo {
        try await store.insert(Todo(id: nil, title: title, requestID: requestID))
    }

    /// Makes this request's commit fail when the unit of work ends, as a database that refuses it would:
    /// for showing what a request whose commit failed answers.
    ///
    /// ```swift
    /// work.failCommit()  // the scope's shutdown throws CommitFailed
    /// ```
    public func failCommit() {
        commitFails.store(true, ordering: .releasing)
    }

    /// Ends the unit of work, committing it: called once, by the request's scope.
    ///
    /// ```swift
    /// try await request.shutdown()  // shuts the request's unit of work down
    /// ```
    public func shutdown() async throws {
        let repeated = shutDown.exchange(true, ordering: .acquiringAndReleasing)
        audit.recordShutdown(of: requestID, repeated: repeated)
        if commitFails.load(ordering: .acquiring) { throw CommitFailed(requestID: requestID) }
    }
}

/// The commit of a request's unit of work failed.
public struct CommitFailed: Error, CustomStringConvertible {
    /// The request whose commit failed.
    public let requestID: String

    /// What failed.
    ///
    /// ```swift
    /// CommitFailed(requestID: "r-1").description  // "the commit of request r-1 failed"
    /// ```
    public var description: String { "the commit of request \(requestID) failed" }
}
