import Contextual
import Testing

@Suite("Objects provided by type")
struct ObjectTests {
    @Test("providing stores an object under its own type, visible to descendants")
    func providingByType() {
        let database = Database(url: "postgres://db")
        let app = Context(name: "app").child(providing: database, name: "with database")
        let request = app.child(name: "request") { $0.requestID = "r" }
        #expect(request.resolve(Database.self) === database)
        #expect((request.resolve(Database.self) as Database?) === database)
    }

    @Test("An object can be provided inside the configuring closure, and under a protocol type")
    func provideInClosureAndUnderProtocol() {
        let app = Context(name: "app") {
            $0.provide(Database(url: "a"))
            $0.provide(MemoryStore(), as: (any Store).self)
        }
        #expect(app.resolve(Database.self).url == "a")
        #expect(app.resolve((any Store).self).kind == "memory")
        #expect((app.resolve(MemoryStore.self) as MemoryStore?) == nil)
    }

    @Test("A closer provider overrides a farther one, in its subtree only")
    func closerProviderWins() {
        let app = Context(name: "app").child(providing: Database(url: "app"))
        let tenant = app.child(providing: Database(url: "tenant"))
        #expect(tenant.resolve(Database.self).url == "tenant")
        #expect(app.resolve(Database.self).url == "app")
    }

    @Test("An object type and a key do not collide, even for the same value type")
    func objectsAndKeysAreSeparate() {
        let app = Context(name: "app") {
            $0.requestID = "key"
            $0.provide("object")
        }
        #expect(app[\.requestID] == "key")
        #expect(app.resolve(String.self) == "object")
    }

    @Test("The optional form returns nil when no context provides the type")
    func optionalResolveReturnsNil() {
        let app = Context(name: "app")
        let database: Database? = app.child { $0.verbosity = 1 }.resolve(Database.self)
        #expect(database == nil)
    }

    @Test("require throws a missingObject error naming the type, the contexts searched and the fix")
    func requireThrowsClearError() throws {
        let app = Context(name: "app")
        let request = app.child(name: "request 42") { $0.requestID = "42" }
        let error = try #require(throws: ContextError.self) { try request.require(Database.self) }
        #expect(error.code == .missingObject)
        #expect(error.requestedType == "ContextualTests.Database")
        #expect(error.searchedContexts == ["request 42", "app"])
        #expect(error.description.contains("no object of type 'ContextualTests.Database'"))
        #expect(error.description.contains("'request 42' → 'app'"))
        #expect(error.description.contains("provide it with `child(providing:)`"))
    }

    @Test("A missing object searched only at the process-wide root says the code ran outside run, and names run")
    func missingAtRootNamesRun() throws {
        let error = try #require(throws: ContextError.self) { try Context.root.require(Database.self) }
        #expect(error.searchedContexts == ["root"])
        #expect(error.description.contains("only the process-wide root was searched"))
        #expect(error.description.contains("outside `run`"))
        #expect(error.description.contains("`app.resolve(ContextualTests.Database.self)`"))
        #expect(!error.description.contains("child(providing:)"))
        let protocolError = try #require(throws: ContextError.self) { try Context.root.require((any Store).self) }
        #expect(protocolError.description.contains("`app.resolve((any ContextualTests.Store).self)`"))
    }

    @Test("A missing protocol type's fix provides it under the protocol and spells its optional with parentheses")
    func missingProtocolFix() throws {
        let error = try #require(throws: ContextError.self) { try Context(name: "app").require((any Store).self) }
        #expect(error.description.contains("`context.child(providing: object, as: (any ContextualTests.Store).self)`"))
        #expect(error.description.contains("resolve it as `(any ContextualTests.Store)?`"))
    }

    @Test("Overloads: without a type to choose by, resolve is the optional form; annotated, the hard one")
    func overloadResolution() {
        let app = Context(name: "app").child(providing: Database(url: "x"))
        let unannotated = app.resolve(Database.self)
        #expect(type(of: unannotated) == Database?.self)
        let hard: Database = app.resolve(Database.self)
        #expect(hard.url == "x")
        #expect(app.resolve(Database.self).url == "x")
        let optional: MemoryStore? = app.resolve(MemoryStore.self)
        #expect(optional == nil)
        #expect((app.resolve(MemoryStore.self) as MemoryStore?) == nil)
    }

    @Test("require returns the object when one is provided")
    func requireReturnsObject() throws {
        let app = Context(name: "app").child(providing: Database(url: "x"))
        #expect(try app.require(Database.self).url == "x")
    }

    @Test("resolve of a missing type stops the process with a message naming type, chain and fix")
    func resolveMissingStopsProcess() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let app = Context(name: "app")
            let request = app.child(name: "request") { $0.requestID = "1" }
            _ = request.resolve(Database.self) as Database
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("no object of type 'ContextualTests.Database'"))
        #expect(stderr.contains("'request' → 'app'"))
        #expect(stderr.contains("context.child(providing: "))
    }

    @Test("An object can be removed again by update, revealing the ancestor's")
    func removeObjectRevealsAncestor() {
        let app = Context(name: "app").child(providing: Database(url: "app"))
        let tenant = app.child(providing: Database(url: "tenant"))
        tenant.update { $0.removeObject(for: Database.self) }
        #expect(tenant.resolve(Database.self).url == "app")
    }
}
