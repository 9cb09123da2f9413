import Testing

@testable import Contextual

@Suite("Observing context values")
struct ContextObservationTests {
    @Test("Observers on the context and its descendants get the value they now see")
    func updateNotifiesSubtree() {
        let app = Context(name: "app") { $0.requestID = "v1" }
        let child = app.child(name: "child") { $0.verbosity = 1 }
        let atApp = Collector<String>()
        let atChild = Collector<String>()
        let tokens = [
            app.observe(\.requestID) { atApp.append($0) },
            child.observe(\.requestID) { atChild.append($0) },
        ]
        app.update { $0.requestID = "v2" }
        #expect(atApp.all == ["v2"])
        #expect(atChild.all == ["v2"])
        child.update { $0.verbosity = 2 }
        #expect(atChild.all == ["v2"])
        withExtendedLifetime(tokens) {}  // an optimized build would end them at their last use
    }

    @Test("An override between the change and the observer shields it; adding or removing one notifies")
    func overridesShieldAndNotify() {
        let app = Context(name: "app") { $0.requestID = "app" }
        let middle = app.child(name: "middle") { $0.verbosity = 1 }
        let leaf = middle.child(name: "leaf") { $0.tags = [] }
        let seen = Collector<String>()
        let token = leaf.observe(\.requestID) { seen.append($0) }

        middle.update { $0.requestID = "middle" }  // adding an override: a change for the subtree
        #expect(seen.all == ["middle"])
        app.update { $0.requestID = "app 2" }  // shielded by the middle override
        #expect(seen.all == ["middle"])
        middle.update { $0.removeValue(for: RequestIDKey.self) }  // removing it: the subtree sees app's
        #expect(seen.all == ["middle", "app 2"])
        token.cancel()
    }

    @Test("A sibling's change does not notify")
    func siblingDoesNotNotify() {
        let app = Context(name: "app")
        let first = app.child(name: "first") { $0.requestID = "1" }
        let second = app.child(name: "second") { $0.requestID = "2" }
        let seen = Collector<String>()
        let token = second.observe(\.requestID) { seen.append($0) }
        first.update { $0.requestID = "1b" }
        #expect(seen.count == 0)
        token.cancel()
    }

    @Test("Replacing a provided object notifies its observers; a property change inside it does not")
    func objectReplacementVersusPropertyChange() {
        let library = Library()
        let app = Context(name: "app").child(providing: library)
        let request = app.child(name: "request") { $0.requestID = "r" }
        let replaced = Collector<String>()
        let renamed = Collector<String>()
        let tokens = [
            request.observe(Library.self) { replaced.append($0?.name ?? "none") },
            library.observe(\.name) { renamed.append($0) },
        ]
        library.name = "Renamed"
        #expect(replaced.count == 0)
        #expect(renamed.all == ["Renamed"])
        let newLibrary = Library()
        app.update { $0.provide(newLibrary) }
        #expect(replaced.all == ["City Library"])
        app.update { $0.removeObject(for: Library.self) }
        #expect(replaced.all == ["City Library", "none"])
        withExtendedLifetime(tokens) {}  // an optimized build would end them at their last use
    }

    @Test("An object observed under a key path changes only when a different object is set")
    func objectUnderKeyPath() {
        let library = Library()
        let app = Context(name: "app") { $0.library = library }
        let seen = Counter()
        let token = app.observe(\.library) { _ in seen.increment() }
        library.books = [Book(title: "A")]
        #expect(seen.count == 0)
        app.update { $0.library = Library() }
        #expect(seen.count == 1)
        token.cancel()
    }

    @Test("withTracking records context keys as well as observed properties")
    func trackingContextKeys() {
        let app = Context(name: "app") { $0.verbosity = 1 }
        let request = app.child(name: "request") { $0.requestID = "r" }
        let library = Library()
        let changes = Counter()
        ObservationRegistry.withTracking {
            _ = request[\.verbosity]
            _ = library.name
        } onChange: {
            changes.increment()
        }
        request.update { $0.tags = ["unrelated"] }
        #expect(changes.count == 0)
        app.update { $0.verbosity = 2 }
        app.update { $0.verbosity = 3 }
        library.name = "after"
        #expect(changes.count == 1)
    }

    @Test("@Injected reads inside tracking are tracked")
    func injectedReadsAreTracked() {
        struct Service {
            @Injected(\.verbosity) var verbosity
        }
        let app = Context(name: "app") { $0.verbosity = 1 }
        let service = app.run { Service() }
        let changes = Counter()
        ObservationRegistry.withTracking {
            _ = service.verbosity
        } onChange: {
            changes.increment()
        }
        app.update { $0.verbosity = 2 }
        #expect(changes.count == 1)
    }

    @Test("changes(of:) on a context yields the current value, then each value it sees")
    func contextChangesStream() async {
        let app = Context(name: "app") { $0.verbosity = 1 }
        let child = app.child { $0.tags = [] }
        var iterator = child.changes(of: \.verbosity).makeAsyncIterator()
        #expect(await iterator.next() == 1)
        app.update { $0.verbosity = 2 }
        #expect(await iterator.next() == 2)
        child.update { $0.verbosity = 7 }
        #expect(await iterator.next() == 7)
    }

    @Test("Observing never keeps a context alive, and a released context ends its observers")
    func contextsAreNotKeptAlive() async {
        weak var weakChild: Context?
        let app = Context(name: "app") { $0.verbosity = 1 }
        var token: ObservationToken?
        do {
            let child = app.child(name: "short-lived") { $0.tags = [] }
            weakChild = child
            token = child.observe(\.verbosity) { _ in }
        }
        #expect(weakChild == nil)
        app.update { $0.verbosity = 2 }  // the observer's context is gone: the subscription ends
        #expect(app.tree.observers.subscriptionCount == 0)
        withExtendedLifetime(token) {}
    }

    @Test("Concurrent updates and observers lose no final value")
    func concurrentUpdatesAndObservers() async {
        let app = Context(name: "app") { $0.requestID = "start" }
        let children = (0..<4).map { index in app.child(name: "child \(index)") { $0.verbosity = index } }
        let collectors = children.map { _ in Collector<String>() }
        let tokens = zip(children, collectors).map { child, collector in
            child.observe(\.requestID) { collector.append($0) }
        }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask { for step in 0..<100 { app.update { $0.requestID = "\(writer)-\(step)" } } }
            }
            for child in children {
                group.addTask {
                    for _ in 0..<100 { child.observe(\.requestID) { _ in }.cancel() }
                }
            }
        }
        let final = app[\.requestID]
        for collector in collectors {
            #expect(collector.all.last == final)
            #expect(Set(collector.all).count == collector.all.count)
        }
        withExtendedLifetime(tokens) {}  // an optimized build would end them at their last use
    }
}
