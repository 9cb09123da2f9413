import Foundation
import Testing

@testable import Contextual

// MARK: - Keys and objects of these tests

/// An object whose deinit runs code given to it: a resolve or an update of the context it lived in.
private final class Watched: Sendable {
    let name: String
    let onDeinit: @Sendable () -> Void

    init(_ name: String, onDeinit: @escaping @Sendable () -> Void = {}) {
        self.name = name
        self.onDeinit = onDeinit
    }

    deinit { onDeinit() }
}

private enum WatchedKey: ContextKey {
    static var defaultValue: Watched? { nil }
}

/// A read that stays inside the read section of the values it reads until it is let go.
private enum HeldReadKey: ContextKey {
    static var defaultValue: Int { 0 }
}

/// Holds a read of `held` inside its read section until `release()`.
private final class ReadGate: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)

    func release() { released.signal() }
}

private let gates = Locked<[ReadGate]>.make([])

extension ContextValues {
    fileprivate var watched: Watched? {
        get { self[WatchedKey.self] }
        set { self[WatchedKey.self] = newValue }
    }

    /// Reads the value, then waits for the gate, still inside the read.
    fileprivate var held: Int {
        let value = self[HeldReadKey.self]
        if let gate = gates.withLock({ $0.popLast() }) {
            gate.entered.signal()
            _ = gate.released.wait(timeout: .now() + .seconds(Int(waitLimit.components.seconds)))
        }
        return value
    }
}

@Suite("What an update replaces is released when promised, without a later update or read")
struct ReleasePromiseTests {
    @Test("A value replaced by an update of a root is released by that update")
    func replacedValueOnRoot() {
        weak var first: Watched?
        let app = Context(name: "app") { $0.verbosity = 1 }
        do {
            let value = Watched("first")
            first = value
            app.update { $0.watched = value }
        }
        #expect(app[\.watched]?.name == "first")
        app.update { $0.watched = Watched("second") }
        #expect(first == nil)
        #expect(app[\.watched]?.name == "second")
    }

    @Test("An object removed by an update is released by that update, on a root and on a child")
    func removedObject() {
        for onChild in [false, true] {
            weak var removed: Database?
            let app = Context(name: "app") { $0.verbosity = 1 }
            let target = onChild ? app.child(name: "request") { $0.requestID = "r" } : app
            do {
                let database = Database(url: "removed")
                removed = database
                target.update { $0.provide(database) }
            }
            #expect(target.resolve(Database.self).url == "removed")
            target.update { $0.removeObject(for: Database.self) }
            #expect(removed == nil, "on \(onChild ? "a child" : "a root")")
            #expect(target.withValues { $0.object(Database.self) } == nil)
        }
    }

    @Test("Contexts below that read the value before it was replaced let it go with the update")
    func descendantsLetGo() {
        weak var first: Watched?
        weak var removed: Database?
        let app = Context(name: "app") { $0.verbosity = 1 }
        let service = app.child(name: "service") { $0.requestID = "s" }
        let request = service.child(name: "request") { $0.tags = ["r"] }
        let updated = app.child(name: "updated") { $0.tags = ["u"] }
        do {
            let value = Watched("first")
            let database = Database(url: "removed")
            first = value
            removed = database
            app.update {
                $0.watched = value
                $0.provide(database)
            }
        }
        // Each holds a state of its own now: brought up to date by a read, or by an update of its own.
        #expect(request[\.watched]?.name == "first")
        #expect(service.resolve(Database.self).url == "removed")
        updated.update { $0.verbosity = 2 }
        app.update { $0.watched = Watched("second") }
        #expect(first == nil)
        app.update { $0.removeObject(for: Database.self) }
        #expect(removed == nil)
        #expect(request[\.watched]?.name == "second")
        #expect(updated[\.watched]?.name == "second")
        #expect(updated[\.verbosity] == 2)
        #expect(request.withValues { $0.object(Database.self) } == nil)
    }

    @Test("A provider added then removed by updates of a child goes, with what it built")
    func providerAddedThenRemoved() throws {
        weak var built: Database?
        weak var provider: (any ContextBox)?
        let app = Context(name: "app") { $0.verbosity = 1 }
        let service = app.child(name: "service") { $0.requestID = "s" }
        service.update { $0.provide(Database.self, lifetime: .singleton) { _ in Database(url: "built") } }
        do {
            let database = try service.require(Database.self)
            built = database
            provider = service.withValues { $0.own.box(StorageID(object: Database.self)) }
        }
        #expect(provider != nil)
        service.update { $0.removeObject(for: Database.self) }
        #expect(provider == nil)
        #expect(built == nil)
    }

    @Test("The same entry updated again and again keeps only the current value")
    func repeatedUpdates() {
        let app = Context(name: "app") {
            $0.verbosity = 1
            $0.requestID = "a"
        }
        weak var last: Watched?
        for round in 0..<5 {
            weak let previous = last
            do {
                let value = Watched("round \(round)")
                last = value
                app.update { $0.watched = value }
            }
            #expect(previous == nil)
        }
        #expect(last != nil)
        app.update { $0.removeValue(for: WatchedKey.self) }
        #expect(last == nil)
    }

    @Test("A replaced object whose deinit resolves or updates is released, and its deinit's work is done")
    func deinitThatResolvesOrUpdates() {
        let app = Context(name: "app") { $0.verbosity = 1 }
        let seen = Locked<[String]>.make([])
        weak var first: Watched?
        do {
            let value = Watched("first") {
                // A deinit that reads and writes the tree that released it.
                seen.withLock { $0.append("deinit sees \(app[\.watched]?.name ?? "nil")") }
                app.update { $0.verbosity += 1 }
            }
            first = value
            app.update { $0.watched = value }
        }
        app.update { $0.watched = Watched("second") }
        #expect(first == nil)
        #expect(seen.withLock { $0 } == ["deinit sees second"])
        #expect(app[\.verbosity] == 2)
    }

    @Test("A value replaced while a reader is inside a read of it is released when that reader leaves")
    func releasedWhenTheLastReaderLeaves() {
        for onChild in [false, true] {
            let app = Context(name: "app") { $0.verbosity = 1 }
            let target = onChild ? app.child(name: "child") { $0.requestID = "c" } : app
            weak var first: Watched?
            do {
                let value = Watched("first")
                first = value
                target.update {
                    $0.watched = value
                    $0[HeldReadKey.self] = 7
                }
            }
            let gate = ReadGate()
            gates.withLock { $0.append(gate) }
            let reader = Thread { _ = target[\.held] }
            reader.start()
            let entered = gate.entered.wait(timeout: .now() + .seconds(Int(waitLimit.components.seconds)))
            #expect(entered == .success)
            target.update { $0.watched = Watched("second") }
            // The reader inside may still be reading the state that showed the first value.
            #expect(first != nil)
            gate.release()
            // Released by the reader's leaving: no update or read comes after.
            let released = blockingWaitUntil { first == nil }
            #expect(first == nil, "on \(onChild ? "a child" : "a root")")
            if entered != .success || !released { break }  // one failure is enough: each waits the whole limit
        }
    }
}
