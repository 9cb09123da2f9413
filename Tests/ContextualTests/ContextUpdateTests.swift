import Contextual
import Testing

@Suite("Replacing values after a context was made")
struct ContextUpdateTests {
    @Test("An update reaches the context and its descendants, not its parent")
    func updateReachesSubtree() {
        let app = Context(name: "app") { $0.requestID = "v1" }
        let service = app.child(name: "service") { $0.verbosity = 1 }
        let request = service.child(name: "request") { $0.tags = ["r"] }
        #expect(request[\.requestID] == "v1")
        service.update { $0.requestID = "v2" }
        #expect(service[\.requestID] == "v2")
        #expect(request[\.requestID] == "v2")
        #expect(app[\.requestID] == "v1")
    }

    @Test("An override between the change and a reader shields the reader")
    func overrideShieldsDescendants() {
        let app = Context(name: "app") { $0.requestID = "v1" }
        let shield = app.child(\.requestID, "shielded")
        let below = shield.child { $0.verbosity = 1 }
        app.update { $0.requestID = "v2" }
        #expect(below[\.requestID] == "shielded")
        shield.update { $0.removeValue(for: RequestIDKey.self) }
        #expect(below[\.requestID] == "v2")
    }

    @Test("A child made after an update inherits the new value")
    func childAfterUpdate() {
        let app = Context(name: "app") { $0.verbosity = 1 }
        app.update { $0.verbosity = 2 }
        #expect(app.child { $0.tags = [] }[\.verbosity] == 2)
    }

    @Test("An update that changes nothing is a no-op")
    func emptyUpdate() {
        let app = Context(name: "app") { $0.verbosity = 1 }
        app.update { _ in }
        app.update { $0.verbosity = $0.verbosity }
        #expect(app[\.verbosity] == 1)
    }

    @Test("A value set by update is released once replaced; a context's initial values live with it")
    func replacedValueIsReleased() {
        weak var initial: Database?
        weak var updated: Database?
        let app: Context
        do {
            let first = Database(url: "initial")
            initial = first
            app = Context(name: "app").child(providing: first)
        }
        let request = app.child { $0.verbosity = 1 }
        do {
            let second = Database(url: "updated")
            updated = second
            app.update { $0.provide(second) }
        }
        #expect(request.resolve(Database.self).url == "updated")
        app.update { $0.provide(Database(url: "third")) }
        #expect(request.resolve(Database.self).url == "third")
        #expect(updated == nil)
        // Lock-free readers may still be reading the values a context was made with, so they stay
        // until the context itself goes.
        #expect(initial != nil)
    }

    @Test("A context's initial values are released with the context")
    func initialValuesReleasedWithContext() {
        weak var database: Database?
        do {
            let app = Context(name: "app") { $0.provide(Database(url: "x")) }
            database = app.resolve(Database.self)
            app.update { $0.provide(Database(url: "y")) }
            #expect(database != nil)
        }
        #expect(database == nil)
    }

    @Test("Readers and writers racing on one tree see only values that were written")
    func concurrentReadersAndWriters() async {
        let app = Context(name: "app") { $0.verbosity = 0 }
        let children = (0..<8).map { index in app.child(name: "child \(index)") { $0.tags = ["\(index)"] } }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for step in 0..<500 {
                        let value = writer * 1_000 + step
                        app.update { $0.verbosity = value }
                    }
                }
            }
            for reader in 0..<8 {
                group.addTask {
                    let child = children[reader]
                    for _ in 0..<5_000 {
                        let seen = child[\.verbosity]
                        #expect(seen >= 0 && seen % 1_000 < 500 && seen / 1_000 < 4)
                        #expect(child[\.tags] == ["\(reader)"])
                    }
                }
            }
        }
        // Every writer's last write has been applied; the final value is one of them.
        let final = app[\.verbosity]
        #expect([499, 1_499, 2_499, 3_499].contains(final))
        #expect(children.allSatisfy { $0[\.verbosity] == final })
    }

    @Test("Concurrent updates of different keys of one context both apply")
    func concurrentUpdatesOfDifferentKeysMerge() async {
        let app = Context(name: "app")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for step in 1...200 { app.update { $0.verbosity = step } } }
            group.addTask { for step in 1...200 { app.update { $0.requestID = "\(step)" } } }
        }
        #expect(app[\.verbosity] == 200)
        #expect(app[\.requestID] == "200")
    }
}

@Suite("update as an atomic read-modify-write")
struct ContextUpdateAtomicityTests {
    @Test("Racing read-modify-write updates of one key lose no write")
    func racingAppendsAreNotLost() async {
        let app = Context(name: "app") { $0.tags = [] }
        let child = app.child { $0.verbosity = 1 }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for step in 0..<250 { app.update { $0.tags.append("\(writer)-\(step)") } }
                }
            }
            group.addTask {
                for _ in 0..<1_000 { _ = child[\.tags] }
            }
        }
        #expect(app[\.tags].count == 1_000)
        #expect(Set(app[\.tags]).count == 1_000)
        #expect(child[\.tags].count == 1_000)
    }

    @Test("An update of a descendant made while an ancestor changes reads the ancestor's new value")
    func updateSeesAncestorChange() {
        let app = Context(name: "app") { $0.verbosity = 1 }
        let child = app.child { $0.tags = [] }
        app.update { $0.verbosity = 5 }
        child.update { $0.verbosity += 1 }
        #expect(child[\.verbosity] == 6)
        #expect(app[\.verbosity] == 5)
    }
}
