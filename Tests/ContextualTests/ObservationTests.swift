import Testing

@testable import Contextual

@Suite("Observable objects and the observation registry")
struct ObservationTests {
    @Test("observe passes the new value after every change, stored before the handler runs")
    func observeDeliversNewValueAfterStore() {
        let library = Library()
        let seen = Collector<[String]>()
        let readInside = Collector<Int>()
        let token = library.observe(\.books) { books in
            seen.append(books.map(\.title))
            readInside.append(library.books.count)
        }
        library.books.append(Book(title: "Dune"))
        library.books.append(Book(title: "Emma"))
        #expect(seen.all == [["Dune"], ["Dune", "Emma"]])
        #expect(readInside.all == [1, 2])
        token.cancel()
    }

    @Test("An equal value or the same instance does not notify")
    func equalWritesDoNotNotify() {
        let library = Library()
        let names = Collector<String>()
        let databases = Collector<String>()
        let tokens = [
            library.observe(\.name) { names.append($0) },
            library.observe(\.database) { databases.append($0.url) },
        ]
        library.name = "City Library"
        library.database = library.database
        #expect(names.count == 0)
        #expect(databases.count == 0)
        library.name = "Town Library"
        library.database = Database(url: "other")
        #expect(names.all == ["Town Library"])
        #expect(databases.all == ["other"])
        withExtendedLifetime(tokens) {}  // an optimized build would end them at their last use
    }

    @Test("cancel ends a subscription, is idempotent, and a released token ends it too")
    func cancelAndRelease() {
        let library = Library()
        let seen = Collector<Int>()
        let token = library.observe(\.bookCount) { seen.append($0) }
        library.books = [Book(title: "A")]
        token.cancel()
        token.cancel()
        #expect(token.isCancelled)
        library.books = []
        #expect(seen.all == [1])

        var released: ObservationToken? = library.observe(\.bookCount) { seen.append($0 + 100) }
        library.books = [Book(title: "B")]
        released = nil
        library.books = []
        #expect(seen.all == [1, 101])
        _ = released
        #expect(library.observationRegistry.subscriptionCount == 0)
    }

    @Test("A handler may write, subscribe and cancel without deadlock")
    func reentrantHandlers() {
        let library = Library()
        let later = Collector<ObservationToken>()
        let seen = Collector<String>()
        let tokenBox = Collector<ObservationToken>()
        let token = library.observe(\.books) { books in
            library.name = "has \(books.count)"
            later.append(library.observe(\.name) { seen.append($0) })
            tokenBox.all.first?.cancel()
        }
        tokenBox.append(token)
        library.books = [Book(title: "A")]
        library.books = []
        library.name = "renamed"
        #expect(library.name == "renamed")
        #expect(token.isCancelled)
        #expect(seen.all == ["renamed"])
    }

    @Test("withTracking calls onChange once, for a change of what the closure read only")
    func trackingFiresOnceForReadProperties() {
        let library = Library()
        let changes = Counter()
        let count = ObservationRegistry.withTracking {
            library.books.count
        } onChange: {
            changes.increment()
        }
        #expect(count == 0)
        library.name = "not read"
        #expect(changes.count == 0)
        library.books.append(Book(title: "A"))
        library.books.append(Book(title: "B"))
        #expect(changes.count == 1)
        #expect(library.observationRegistry.subscriptionCount == 0)
    }

    @Test("Continuous tracking re-arms after each change and stops with its token")
    func continuousTracking() {
        let library = Library()
        let counts = Collector<Int>()
        let token = ObservationRegistry.withContinuousTracking {
            library.books.count
        } onChange: {
            counts.append($0)
        }
        library.books.append(Book(title: "A"))
        library.books.append(Book(title: "B"))
        token.cancel()
        library.books.append(Book(title: "C"))
        #expect(counts.all == [1, 2])
    }

    @Test("batch delivers at most one notification per subscriber, after the batch")
    func batchCoalesces() {
        let library = Library()
        let seen = Collector<[String]>()
        let duringBatch = Collector<Int>()
        let token = library.observe(\.books) { seen.append($0.map(\.title)) }
        ObservationRegistry.batch {
            library.books.append(Book(title: "A"))
            library.books.append(Book(title: "B"))
            ObservationRegistry.batch { library.books.append(Book(title: "C")) }
            duringBatch.append(seen.count)
        }
        #expect(duringBatch.all == [0])
        #expect(seen.all == [["A", "B", "C"]])
        token.cancel()
    }

    @Test("changes(of:) yields the current value first, then every later value")
    func changesStream() async {
        let library = Library()
        library.books = [Book(title: "first")]
        let stream = library.changes(of: \.bookCount)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        library.books.append(Book(title: "second"))
        #expect(await iterator.next() == 2)
        library.books = []
        #expect(await iterator.next() == 0)
    }

    @Test("A slow consumer of changes(of:) gets the newest value")
    func changesKeepsNewest() async {
        let library = Library()
        var iterator = library.changes(of: \.name).makeAsyncIterator()
        for index in 1...5 { library.name = "name \(index)" }
        #expect(await iterator.next() == "name 5")
    }

    @Test("Releasing the model finishes its streams and drops its subscriptions")
    func modelDeinitFinishesStreams() async {
        var library: Library? = Library()
        weak let weakLibrary = library
        let stream = library!.changes(of: \.bookCount)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        library = nil
        #expect(weakLibrary == nil)
        #expect(await iterator.next() == nil)
    }

    @Test("Ending the consuming task ends the subscription")
    func cancellingConsumerEndsSubscription() async throws {
        let library = Library()
        let started = Counter()
        let consumer = Task {
            for await _ in library.changes(of: \.name) { started.increment() }
        }
        while started.count == 0 { await Task.yield() }
        #expect(library.observationRegistry.subscriptionCount == 1)
        consumer.cancel()
        await consumer.value
        #expect(library.observationRegistry.subscriptionCount == 0)
    }

    @Test("A registry never keeps an observer alive once its token is gone, nor the model")
    func noLeaks() {
        final class Observer: Sendable {
            let seen = Counter()
        }
        weak var weakObserver: Observer?
        weak var weakLibrary: Library?
        do {
            let library = Library()
            weakLibrary = library
            var token: ObservationToken?
            do {
                let observer = Observer()
                weakObserver = observer
                token = library.observe(\.name) { _ in observer.seen.increment() }
            }
            library.name = "changed"
            #expect(weakObserver?.seen.count == 1)
            token = nil
            #expect(weakObserver == nil)
            withExtendedLifetime(token) {}
        }
        #expect(weakLibrary == nil)
    }

    @Test("Many tasks writing and subscribing at once lose no promised notification")
    func contention() async {
        let library = Library()
        let persistent = (0..<8).map { _ in Collector<String>() }
        let tokens = persistent.map { collector in library.observe(\.name) { collector.append($0) } }
        let tracked = Counter()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for step in 0..<200 { library.name = "\(writer)-\(step)" }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<100 {
                        let token = library.observe(\.name) { _ in }
                        token.cancel()
                        ObservationRegistry.withTracking {
                            _ = library.name
                        } onChange: {
                            tracked.increment()
                        }
                    }
                }
            }
        }
        let final = library.name
        for collector in persistent {
            // The final value always arrives, last; no value is delivered twice.
            #expect(collector.all.last == final)
            #expect(Set(collector.all).count == collector.all.count)
            #expect(collector.count > 0)
        }
        // Every one-shot tracking installed while values kept changing fired, except those installed
        // after the last write.
        #expect(tracked.count <= 400)
        #expect(library.observationRegistry.subscriptionCount == 8 + (400 - tracked.count))
        withExtendedLifetime(tokens) {}  // an optimized build would end them at their last use
    }

    @Test("A first subscriber that races a write either read the written value or is told of it")
    func firstSubscriberRacesAWrite() async {
        // A write with nobody subscribed skips the registry after one check: the check and a new
        // subscription must never miss each other, or the subscriber would keep an outdated value.
        for trial in 0..<300 {
            let library = Library()
            let fired = Counter()
            let read = Locked<String?>.make(nil)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for step in 0..<20 { library.name = "\(trial)-\(step)" }
                }
                group.addTask {
                    let name = ObservationRegistry.withTracking {
                        library.name
                    } onChange: {
                        fired.increment()
                    }
                    read.withLock { $0 = name }
                }
            }
            if read.withLock({ $0 }) != library.name {
                #expect(fired.count == 1, "trial \(trial): the subscriber read an older value and was not told")
            }
        }
    }

}
