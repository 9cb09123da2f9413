import Contextual
import Testing

private struct UserService {
    @Injected(\.requestID) var requestID
    @Injected(Database.self) var database
    @Injected(Database.self) var optionalDatabase: Database?
    @Injected(MemoryStore.self) var missingStore: MemoryStore?
}

private struct ExplicitService {
    let app: Context
    @Injected<String> var requestID: String

    init(app: Context) {
        self.app = app
        self._requestID = Injected(\.requestID, from: app)
    }
}

@Suite("@Injected")
struct InjectedTests {
    @Test("@Injected resolves by key path and by type, with an optional form that returns nil")
    func resolvesByKeyPathAndType() {
        let database = Database(url: "db")
        let app = Context(name: "app") {
            $0.provide(database)
            $0.requestID = "app"
        }
        let request = app.child(\.requestID, "req-1", name: "request")
        let service = request.run { UserService() }
        #expect(service.requestID == "req-1")
        #expect(service.database === database)
        #expect(service.optionalDatabase === database)
        #expect(service.missingStore == nil)
        #expect(service.$requestID.context === request)
    }

    @Test("An object made while a context is current keeps resolving from it, on any task or thread")
    func bindsToContextCurrentAtCreation() async {
        let app = Context(name: "app").child(providing: Database(url: "db"))
        let request = app.child(\.requestID, "req-A", name: "A")
        let other = app.child(\.requestID, "req-B", name: "B")
        let service = request.run { UserService() }
        let seenElsewhere = await other.run {
            await Task.detached { service.requestID }.value
        }
        #expect(seenElsewhere == "req-A")
        #expect(other.run { service.requestID } == "req-A")
    }

    @Test("Outside any run, @Injected binds to the process-wide root")
    func outsideRunBindsToRoot() {
        let service = ExplicitService(app: Context(name: "app") { $0.requestID = "explicit" })
        #expect(service.requestID == "explicit")
        let injected = Injected(\.requestID)
        #expect(injected.context === Context.root)
        #expect(injected() == "none")
    }

    @Test("Values are resolved on access: a value replaced later is what the next access sees")
    func resolvedOnAccess() {
        let app = Context(name: "app") {
            $0.requestID = "before"
            $0.provide(Database(url: "old"))
        }
        let request = app.child(name: "request") { $0.verbosity = 1 }
        let service = request.run { UserService() }
        #expect(service.requestID == "before")
        app.update {
            $0.requestID = "after"
            $0.provide(Database(url: "new"))
        }
        #expect(service.requestID == "after")
        #expect(service.database.url == "new")
    }

    @Test("After an update, @Injected keeps what it read until the tree changes again, anywhere in it")
    func keepsPublishedValueUntilTheNextChange() {
        let app = Context(name: "app") { $0.requestID = "v0" }
        let request = app.child(name: "request") { $0.verbosity = 1 }
        let service = request.run { UserService() }
        for version in 1...3 {
            app.update { $0.requestID = "v\(version)" }
            #expect(service.requestID == "v\(version)")
            #expect(service.requestID == "v\(version)")
        }
        // A change elsewhere in the tree: the value is read again, and is the same.
        let sibling = app.child(name: "sibling")
        sibling.update { $0.requestID = "sibling" }
        #expect(service.requestID == "v3")
        // A change between the binding and its reader's ancestor: seen at once.
        request.update { $0.requestID = "request" }
        #expect(service.requestID == "request")
        request.update { $0.removeValue(for: RequestIDKey.self) }
        #expect(service.requestID == "v3")
    }

    @Test("@Injected in a class or an actor reads as in a struct: warm, after an update, and tracked")
    func readsInClassesAndActors() async {
        final class Handler: @unchecked Sendable {
            @Injected(\.requestID) var requestID
            @Injected(Database.self) var database
            @Injected(MemoryStore.self) var missingStore: MemoryStore?
        }
        actor Worker {
            @Injected(\.requestID) var requestID
            func read() -> String { requestID }
        }
        let app = Context(name: "app") {
            $0.requestID = "v0"
            $0.provide(Database(url: "db"))
        }
        let request = app.child(name: "request") { $0.verbosity = 1 }
        let handler = request.run { Handler() }
        let worker = request.run { Worker() }
        for _ in 0..<2 {
            #expect(handler.requestID == "v0")
            #expect(handler.database.url == "db")
            #expect(handler.missingStore == nil)
            #expect(await worker.read() == "v0")
        }
        #expect(handler.$requestID.context === request)
        /// How many times a tracked read of the handler's property is told of a change made by `change`.
        func changesSeenByTrackedRead(_ change: (inout ContextValues) -> Void) -> Int {
            let changes = Counter()
            ObservationRegistry.withTracking {
                _ = handler.requestID
            } onChange: {
                changes.increment()
            }
            app.update(change)
            return changes.count
        }
        // A tracked read of a property that has a warm value is recorded all the same; after the update,
        // the warm read gives way to the published one.
        #expect(changesSeenByTrackedRead { $0.requestID = "v1" } == 1)
        #expect(handler.requestID == "v1")
        #expect(handler.requestID == "v1")
        #expect(await worker.read() == "v1")
        // A tracked read after an update is recorded too.
        #expect(changesSeenByTrackedRead { $0.requestID = "v2" } == 1)
        #expect(handler.requestID == "v2")
        // Many tasks reading one object's property while the tree changes see only written values.
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<500).allSatisfy { _ in ["v2", "v3"].contains(handler.requestID) } }
            }
            group.addTask {
                app.update { $0.requestID = "v3" }
                return true
            }
            for await readOnlyWrittenValues in group { #expect(readOnlyWrittenValues) }
        }
    }

    @Test("After an update, @Injected still builds a transient anew on each read")
    func publishedTransientIsNotKept() {
        struct Service {
            @Injected(Connection.self) var connection
        }
        let app = Context(name: "app") {
            $0.provide(Connection.self, lifetime: .transient) { _ in Connection(url: "t") }
        }
        let service = app.run { Service() }
        app.update { $0.requestID = "changed" }
        #expect(service.connection !== service.connection)
    }

    @Test("@Injected read by many tasks while the tree is updated sees only values that were written")
    func concurrentReadsAfterUpdates() async {
        let app = Context(name: "app") { $0.verbosity = 0 }
        struct Reader {
            @Injected(\.verbosity) var verbosity
        }
        let readers = (0..<4).map { index in app.child(name: "reader \(index)") { _ in }.run { Reader() } }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for step in 1...300 { app.update { $0.verbosity = step } }
            }
            for reader in readers {
                group.addTask {
                    var last = 0
                    for _ in 0..<3_000 {
                        let seen = reader.verbosity
                        #expect(seen >= last && seen <= 300)
                        last = seen
                    }
                }
            }
        }
        #expect(readers.allSatisfy { $0.verbosity == 300 })
    }

    @Test("Context.current flows into child tasks and async let")
    func currentFlowsIntoChildTasks() async {
        let request = Context(name: "app").child(\.requestID, "flows")
        let (fromAsyncLet, fromGroup) = await request.run {
            async let value = Context.current[\.requestID]
            let group = await withTaskGroup(of: String.self) { group in
                group.addTask { Context.current[\.requestID] }
                return await group.next() ?? ""
            }
            return (await value, group)
        }
        #expect(fromAsyncLet == "flows")
        #expect(fromGroup == "flows")
        #expect(Context.current === Context.root)
    }

    @Test("Accessing a missing object through @Injected stops the process, naming the type")
    func injectedMissingStopsProcess() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let request = Context(name: "app").child(name: "request") { $0.requestID = "x" }
            let database = Injected(Database.self, from: request)
            _ = database.wrappedValue
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("no object of type 'ContextualTests.Database'"))
        #expect(stderr.contains("'request' → 'app'"))
    }

    @Test("A missing object read through @Injected in a class stops the process the same way")
    func injectedMissingInClassStopsProcess() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Handler {
                @Injected(Database.self) var database
            }
            let request = Context(name: "app").child(name: "request") { $0.requestID = "x" }
            let handler = request.run { Handler() }
            _ = handler.database
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("no object of type 'ContextualTests.Database'"))
        #expect(stderr.contains("'request' → 'app'"))
    }

    @Test("A missing object read through @Injected is reported at the property's declaration")
    func injectedMissingReportedAtDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let handler = Context(name: "app").run { MissingDatabaseHandler() }
            _ = handler.database
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let line = MissingDatabaseHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(line): Fatal error: Contextual: no object"))
        #expect(!stderr.contains("Context+Reading.swift"))
    }

    @Test("An object whose provider fails, read through @Injected by type, is reported at the property's declaration")
    func injectedObjectProviderFailureReportedAtDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(Database.self, lifetime: .singleton) { _ in throw TestFailure(reason: "refused") }
            }
            _ = app.run { MissingDatabaseHandler() }.database
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let line = MissingDatabaseHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(line): Fatal error: Contextual: the factory"))
        #expect(stderr.contains("refused"))
    }

    @Test("A provider behind a key path that throws, read through @Injected, is reported at the property's declaration")
    func injectedKeyPathProviderFailureReportedAtDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(\.httpClient, lifetime: .singleton) { _ in throw TestFailure(reason: "no TLS") }
            }
            _ = app.run { FailingClientHandler() }.client
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let line = FailingClientHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(line): Fatal error: Contextual: the factory"))
        #expect(stderr.contains("no TLS"))
        #expect(!stderr.contains("ContextValues+Providers.swift"))
    }

    @Test("A key-path provider that throws, read through @Injected after an update, is reported at its declaration")
    func injectedKeyPathProviderFailureAfterUpdateReportedAtDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(\.httpClient, lifetime: .transient) { _ in throw TestFailure(reason: "no TLS") }
            }
            let handler = app.run { FailingClientHandler() }
            app.update { $0.requestID = "after" }
            _ = handler.client
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let line = FailingClientHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(line): Fatal error: Contextual: the factory"))
    }

    @Test("An object whose provider fails, read through @Injected under tracking, is reported at its declaration")
    func injectedProviderFailureUnderTrackingReportedAtDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(Database.self, lifetime: .singleton) { _ in throw TestFailure(reason: "refused") }
            }
            let handler = app.run { MissingDatabaseHandler() }
            _ = ObservationRegistry.withTracking({ handler.database }, onChange: {})
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let line = MissingDatabaseHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(line): Fatal error: Contextual: the factory"))
    }

    @Test("A failure of an @Injected read inside a factory is reported at that property, not at the one being built")
    func nestedInjectedFailureReportedAtInnerDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                // Building the client reads a handler's database, which no context provides.
                $0.provide(\.httpClient, lifetime: .singleton) { _ in
                    _ = MissingDatabaseHandler().database
                    return HTTPClient(name: "never")
                }
            }
            _ = app.run { FailingClientHandler() }.client
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let inner = MissingDatabaseHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(inner): Fatal error: Contextual: no object"))
        #expect(!stderr.contains("InjectedTests.swift:\(FailingClientHandler.declaration)"))
    }

    @Test("An object whose provider fails, read through @Injected after an update, is reported at its declaration")
    func injectedProviderFailureAfterUpdateReportedAtDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(Database.self, lifetime: .transient) { _ in throw TestFailure(reason: "refused") }
            }
            let handler = app.run { MissingDatabaseHandler() }
            // After an update the read goes through the tree's published state, not the initial values.
            app.update { $0.requestID = "after" }
            _ = handler.database
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let line = MissingDatabaseHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(line): Fatal error: Contextual: the factory"))
        #expect(stderr.contains("refused"))
    }

    @Test("An optional object whose provider fails, read through @Injected, is reported at the property's declaration")
    func injectedOptionalProviderFailureReportedAtDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(Database.self, lifetime: .singleton) { _ in throw TestFailure(reason: "refused") }
            }
            _ = app.run { OptionalDatabaseHandler() }.database
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let line = OptionalDatabaseHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(line): Fatal error: Contextual: the factory"))
    }

    @Test("A failure of an @Injected read inside a key's default is reported at that property, not the outer one")
    func failureInsideDefaultReportedAtInnerDeclaration() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // A provider in the chain: the outer read installs its property as the thread's read.
            let app = Context(name: "app") {
                $0.provide(\.httpClient, lifetime: .singleton) { _ in HTTPClient(name: "c") }
            }
            _ = app.run { BrokenDefaultHandler() }.value
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let inner = MissingDatabaseHandler.declaration
        #expect(stderr.contains("ContextualTests/InjectedTests.swift:\(inner): Fatal error: Contextual: no object"))
        #expect(!stderr.contains("InjectedTests.swift:\(BrokenDefaultHandler.declaration)"))
    }

    @Test("A failure outside any @Injected read is located where the library stops, not at an earlier property")
    func failureAfterInjectedReadIsNotLocatedThere() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app") {
                $0.provide(\.httpClient, lifetime: .singleton) { _ in throw TestFailure(reason: "no TLS") }
            }
            // A read of this handler's property ran (and ended) on this thread before the failing one.
            _ = app.run { URLHandler() }.url
            _ = app[\.httpClient]
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Fatal error: Contextual: the factory"))
        #expect(!stderr.contains("InjectedTests.swift:\(URLHandler.declaration)"))
    }
}

// MARK: - Declarations whose line a hard failure names

/// A key whose default reads an `@Injected` object that no context provides.
private enum BrokenDefaultKey: ContextKey {
    static var defaultValue: String { MissingDatabaseHandler().database.url }
}

extension ContextValues {
    fileprivate var brokenDefault: String {
        get { self[BrokenDefaultKey.self] }
        set { self[BrokenDefaultKey.self] = newValue }
    }
}

/// A handler whose `@Injected` value has a default that fails.
private struct BrokenDefaultHandler {
    static let declaration = #line + 1
    @Injected(\.brokenDefault) var value
}

/// A handler whose `@Injected` client is built by a provider behind a key path.
private struct FailingClientHandler {
    static let declaration = #line + 1
    @Injected(\.httpClient) var client
}

/// A handler whose optional `@Injected` object is built by a provider.
private struct OptionalDatabaseHandler {
    static let declaration = #line + 1
    @Injected(Database.self) var database: Database?
}

/// A handler whose `@Injected` value no provider builds.
private struct URLHandler {
    static let declaration = #line + 1
    @Injected(\.databaseURL) var url
}

/// A handler whose `@Injected` object no context provides.
private struct MissingDatabaseHandler {
    static let declaration = #line + 1
    @Injected(Database.self) var database
}
