import Foundation
import Testing

@testable import Contextual

// What the docs promise about notifications, held under misuse and races.

@Suite("Observation promises under races and misuse")
struct ObservationPromiseTests {
    @Test("Setting the same object again, by key path or by type, notifies nobody")
    func sameObjectNotifiesNobody() {
        let library = Library()
        let app = Context(name: "app") {
            $0.library = library
            $0.provide(library)
        }
        let byKeyPath = Collector<Library?>()
        let byType = Collector<Library?>()
        let tokens = [
            app.observe(\.library) { byKeyPath.append($0) },
            app.observe(Library.self) { byType.append($0) },
        ]
        app.update { $0.library = library }
        app.update { $0.provide(library) }
        #expect(byKeyPath.count == 0)
        #expect(byType.count == 0)

        let other = Library()
        app.update { $0.library = other }
        app.update { $0.provide(other) }
        #expect(byKeyPath.all.map { $0 === other } == [true])
        #expect(byType.all.map { $0 === other } == [true])
        withExtendedLifetime(tokens) {}  // an optimized build would end them at their last use
    }

    @Test("Writing an equal Equatable value to a key notifies nobody; a different one notifies")
    func equalValueNotifiesNobody() {
        let app = Context(name: "app") { $0.verbosity = 5 }
        let request = app.child(name: "request")
        let seen = Collector<Int>()
        let token = request.observe(\.verbosity) { seen.append($0) }
        app.update { $0.verbosity = 5 }
        #expect(seen.count == 0)
        app.update { $0.verbosity = 6 }
        #expect(seen.all == [6])
        token.cancel()
    }

    @Test("After an equal value is written, a write elsewhere in the tree does not notify again")
    func equalWriteThenWriteElsewhere() {
        let app = Context(name: "app")
        let sibling = app.child(name: "a")
        let observed = app.child(name: "b")
        let seen = Collector<Int>()
        let token = observed.observe(\.verbosity) { seen.append($0) }
        app.update { $0.verbosity = 3 }
        #expect(seen.all == [3])
        app.update { $0.verbosity = 3 }  // equal: nobody is told
        sibling.update { $0.verbosity = 4 }  // a sibling's own value: `observed` still sees 3
        #expect(seen.all == [3])
        app.update { $0.verbosity = 5 }
        #expect(seen.all == [3, 5])
        token.cancel()
    }

    @Test("An override equal to what a context inherited is no change, then or at a later write elsewhere")
    func equalOverrideThenWriteElsewhere() {
        let app = Context(name: "app")
        let sibling = app.child(name: "a")
        let observed = app.child(name: "b")
        let seen = Collector<Int>()
        let token = observed.observe(\.verbosity) { seen.append($0) }
        observed.update { $0.verbosity = 0 }  // the default it read: no change
        sibling.update { $0.verbosity = 4 }
        #expect(seen.count == 0)
        observed.update { $0.verbosity = 1 }
        #expect(seen.all == [1])
        token.cancel()
    }

    @Test("Observing a type whose provider cannot build now reads nil, without stopping the process")
    func observeTypeWithoutABuild() {
        struct Failure: Error {}
        let app = Context(name: "app") {
            $0.provide(Database.self, lifetime: .singleton) { _ in
                try await Task.sleep(for: .milliseconds(1))
                return Database(url: "async")
            }
            $0.provide(HTTPClient.self, lifetime: .singleton) { _ -> HTTPClient in throw Failure() }
            $0.provide(Connection.self, lifetime: .scoped) { _ in Connection(url: "scoped") }
        }
        let databases = Collector<Database?>()
        let clients = Collector<HTTPClient?>()
        let connections = Collector<Connection?>()
        // Before: each subscription stopped the process (an async factory not awaited, a failing factory,
        // a scoped object outside any scope).
        let tokens = [
            app.observe(Database.self) { databases.append($0) },
            app.observe(HTTPClient.self) { clients.append($0) },
            app.observe(Connection.self) { connections.append($0) },
        ]
        // A different provider set is a change, delivered with the object it gives.
        let replacement = Database(url: "replacement")
        app.update { $0.provide(replacement) }
        #expect(databases.all.map { $0 === replacement } == [true])
        #expect(clients.count == 0)
        #expect(connections.count == 0)
        withExtendedLifetime(tokens) {}
    }

    @Test("Concurrent updates reach every observer newest last, and the final value always arrives")
    func newestLastUnderConcurrentUpdates() {
        // Five rounds: a single round catches an out-of-order delivery about half the time.
        for _ in 0..<5 {
            let app = Context(name: "app") { $0.verbosity = 0 }
            let children = (0..<8).map { index in app.child(name: "child \(index)") }
            let seen = (0..<8).map { _ in Collector<Int>() }
            let tokens = zip(children, seen).map { child, collector in
                child.observe(\.verbosity) { collector.append($0) }
            }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<500 { app.update { $0.verbosity += 1 } }
            }
            for collector in seen {
                let values = collector.all
                #expect(firstInversion(in: values) == nil, "a handler got an older value after a newer one")
                #expect(values.last == 2_000)
            }
            // An optimized build would end them at their last use (a released context ends its observers).
            withExtendedLifetime((children, tokens)) {}
        }
    }

    @Test("A cancel() that races another on the same token returns only once the subscription ended")
    func racingCancelReturnsAfterTheEnd() {
        // The first cancel() stalls inside its action (as a thread preempted there would); a second one,
        // e.g. from the handler, must not return while the subscription is still live, or the handler
        // that cancelled itself is called again by the next change.
        let first = DispatchSemaphore(value: 0)
        let stalled = DispatchSemaphore(value: 0)
        let ended = Locked.make(false)
        let calls = Locked.make(0)
        let token = ObservationToken {
            calls.withLock { $0 += 1 }
            first.signal()
            stalled.wait()
            ended.withLock { $0 = true }
        }
        Thread { token.cancel() }.start()
        first.wait()
        let secondReturned = DispatchSemaphore(value: 0)
        let endedWhenSecondReturned = Locked.make(false)
        Thread {
            token.cancel()
            endedWhenSecondReturned.withLock { $0 = ended.withLock { $0 } }
            secondReturned.signal()
        }.start()
        // While the first is stalled, the second must still be waiting.
        #expect(secondReturned.wait(timeout: .now() + .milliseconds(100)) == .timedOut)
        #expect(!token.isCancelled)
        stalled.signal()
        secondReturned.wait()
        #expect(endedWhenSecondReturned.withLock { $0 }, "cancel() returned before the subscription ended")
        #expect(token.isCancelled)
        token.cancel()  // a third time: nothing left to run
        #expect(calls.withLock { $0 } == 1)
    }

    // A cancel() that waited for its own ending would hang: the limit turns that into a failure.
    @Test("A cancel() from inside the token's own ending returns at once", .timeLimit(.minutes(1)))
    func reentrantCancelReturns() {
        let token = Locked<ObservationToken?>.make(nil)
        let innerReturned = Locked.make(false)
        let made = ObservationToken {
            token.withLock { $0 }?.cancel()  // the same token, from its own action
            innerReturned.withLock { $0 = true }
        }
        token.withLock { $0 = made }
        made.cancel()
        #expect(innerReturned.withLock { $0 })
        #expect(made.isCancelled)
        token.withLock { $0 = nil }
    }

    @Test("@Observed under racing writers delivers the final value last")
    func observedFinalValueArrivesLast() {
        for _ in 0..<5 {
            let library = Library()
            let seen = Collector<String>()
            let token = library.observe(\.name) { seen.append($0) }
            DispatchQueue.concurrentPerform(iterations: 4) { writer in
                for index in 0..<500 { library.name = "\(writer)-\(index)" }
            }
            #expect(seen.all.last == library.name)
            token.cancel()
        }
    }

    @Test("Tracking contexts that are then dropped leaves no subscription behind")
    func trackingDroppedContextsLeavesNothing() {
        let app = Context(name: "app") { $0.requestID = "app" }
        for index in 0..<10_000 {
            let request = app.child(name: "request \(index)") { $0.verbosity = index }
            ObservationRegistry.withTracking {
                _ = request[\.requestID]
                _ = request[\.verbosity]
            } onChange: {
            }
        }
        #expect(app.tree.observers.subscriptionCount == 0)

        // A context that lives keeps its subscription until it fires.
        let fired = Counter()
        ObservationRegistry.withTracking {
            _ = app[\.requestID]
        } onChange: {
            fired.increment()
        }
        #expect(app.tree.observers.subscriptionCount == 1)
        app.update { $0.requestID = "changed" }
        #expect(fired.count == 1)
        #expect(app.tree.observers.subscriptionCount == 0)
    }

    @Test("Observing a context that goes away ends the observation and finishes its stream")
    func observingDroppedContextEnds() async {
        let app = Context(name: "app")
        var request: Context? = app.child(name: "request") { $0.verbosity = 1 }
        let stream = request!.changes(of: \.verbosity)
        request = nil
        var received: [Int] = []
        for await value in stream { received.append(value) }  // finishes: the context is gone
        #expect(received == [1])
        #expect(app.tree.observers.subscriptionCount == 0)
    }

    @Test("child(transforming:) applies to whatever flows from above, and its observers are notified")
    func transformFollowsUpstream() {
        let root = Context(name: "root") { $0.tags = ["v1"] }
        let audited = root.child(transforming: \.tags) { $0.append("audit") }
        let below = audited.child(name: "below")
        #expect(audited[\.tags] == ["v1", "audit"])
        let seen = Collector<[String]>()
        let token = audited.observe(\.tags) { seen.append($0) }

        root.update { $0.tags = ["v2"] }
        #expect(audited[\.tags] == ["v2", "audit"])
        #expect(below[\.tags] == ["v2", "audit"])
        #expect(seen.all == [["v2", "audit"]])
        #expect(root[\.tags] == ["v2"])

        // A value the transformed context sets itself wins from then on.
        audited.update { $0.tags = ["own"] }
        root.update { $0.tags = ["v3"] }
        #expect(audited[\.tags] == ["own"])
        token.cancel()
    }

    @Test("A transform whose inherited value an intermediate context overrides follows that override")
    func transformFollowsNearestOverride() {
        let root = Context(name: "root") { $0.verbosity = 1 }
        let middle = root.child(name: "middle")
        let doubled = middle.child(transforming: \.verbosity) { $0 *= 10 }
        middle.update { $0.verbosity = 2 }
        #expect(doubled[\.verbosity] == 20)
        root.update { $0.verbosity = 3 }  // shielded by middle's override
        #expect(doubled[\.verbosity] == 20)
        middle.update { $0.removeValue(for: VerbosityKey.self) }
        #expect(doubled[\.verbosity] == 30)
    }
}

/// The first value delivered after a newer one, with the newer one, if any.
private func firstInversion(in values: [Int]) -> (older: Int, after: Int)? {
    for (earlier, later) in zip(values, values.dropFirst()) where later < earlier { return (later, earlier) }
    return nil
}
