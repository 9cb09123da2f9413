import Contextual
import Testing

// The ```swift blocks of Articles/Observation.md, verbatim, and what their prose and comments claim.
// The keys `config` and `requestID` come from GettingStartedTests.swift.

// MARK: - Declare a model

struct Book: Sendable, Equatable {
    var title: String
}

final class Library: ObservableModel, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    @Observed var books: [Book] = []
}

// MARK: - Test doubles (not in the article)

private final class Shelf: Sendable {}

private final class Room: ObservableModel, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    @Observed var shelf = Shelf()
}

@Suite("Observation")
struct ObservationTests {
    @Test("Observing the Library's books, a context's config, tracking, batches, and change streams")
    func observation() async {
        let printed = Lines()
        @Sendable func print(_ line: String) { printed.append(line) }

        let library = Library()
        let token = library.observe(\.books) { books in
            print("The library has \(books.count) books")
        }
        library.books.append(Book(title: "Dune"))  // prints "The library has 1 books"
        library.books = library.books  // equal: prints nothing

        #expect(printed.all == ["The library has 1 books"])

        let app = Context(name: "app") { $0.config = Config() }
        let request = app.child(name: "request") { $0.requestID = "req-1" }
        let configToken = request.observe(\.config) { config in
            print("now using \(config.databaseURL)")
        }
        app.update { $0.config.databaseURL = "postgres://primary/app" }  // prints "now using postgres://primary/app"

        #expect(printed.all.last == "now using postgres://primary/app")

        ObservationRegistry.withTracking {
            _ = library.books.count
            _ = request[\.config].verbose
        } onChange: {
            print("something the closure read changed")  // once, at the next change
        }

        ObservationRegistry.batch {
            library.books.append(Book(title: "Emma"))
            library.books.append(Book(title: "Ulysses"))
        }  // the books observer runs once, with 3 books

        #expect(printed.all.filter { $0 == "something the closure read changed" }.count == 1)
        #expect(printed.starting(with: "The library has") == ["The library has 1 books", "The library has 3 books"])
        app.update { $0.config.verbose = true }
        #expect(printed.all.filter { $0 == "something the closure read changed" }.count == 1)

        let countToken = ObservationRegistry.withContinuousTracking {
            library.books.count
        } onChange: { count in
            print("now \(count) books")  // after each change, not for the first count
        }
        library.books.removeLast()  // prints "now 2 books"
        countToken.cancel()
        library.books.removeLast()  // prints nothing more from it

        #expect(printed.starting(with: "now ").filter { !$0.hasPrefix("now using") } == ["now 2 books"])
        #expect(countToken.isCancelled)

        for await count in library.changes(of: \.books.count) {
            print("\(count) books")  // the current count first, then each new one
            if count == 3 { break }
            library.books.append(Book(title: "Middlemarch"))
        }

        #expect(printed.all.filter { $0.first?.isNumber == true } == ["1 books", "2 books", "3 books"])
        token.cancel()
        configToken.cancel()
    }

    @Test("An override between a change and an observer shields it; adding or removing one is a change")
    func overridesShield() {
        let seen = Lines()
        let app = Context(name: "app")
        let middle = app.child(name: "middle")
        let leaf = middle.child(name: "leaf")
        let token = leaf.observe(\.requestID) { seen.append($0) }
        middle.update { $0.requestID = "middle" }  // an override added: a change for the subtree
        app.update { $0.requestID = "app" }  // shielded by the override
        middle.update { $0.removeValue(for: RequestIDKey.self) }  // removed: the app's value shows
        #expect(seen.all == ["middle", "app"])
        token.cancel()
    }

    @Test("Observing an object by type reports which object the context resolves, not its own changes")
    func observeByType() {
        let seen = Lines()
        let app = Context(name: "app")
        let token = app.observe(Database.self) { database in seen.append(database?.url ?? "none") }
        app.update { $0.provide(Database(url: "first")) }
        app.update { $0.provide(Database(url: "second")) }
        app.update { $0.removeObject(for: Database.self) }
        #expect(seen.all == ["first", "second", "none"])
        token.cancel()
    }

    @Test("Writing the same instance notifies nobody; a different one does")
    func sameInstance() {
        let room = Room()
        let seen = Lines()
        let token = room.observe(\.shelf) { _ in seen.append("changed") }
        room.shelf = room.shelf
        #expect(seen.all.isEmpty)
        room.shelf = Shelf()
        #expect(seen.all == ["changed"])
        token.cancel()
    }

    @Test("Releasing a token cancels it, cancel is idempotent, and observing keeps no context alive")
    func lifetimes() {
        let library = Library()
        let seen = Lines()
        var token: ObservationToken? = library.observe(\.books) { _ in seen.append("changed") }
        library.books.append(Book(title: "A"))
        token = nil
        library.books.append(Book(title: "B"))
        #expect(seen.all == ["changed"])
        _ = token

        let explicit = library.observe(\.books) { _ in seen.append("explicit") }
        explicit.cancel()
        explicit.cancel()
        #expect(explicit.isCancelled)

        weak var weakContext: Context?
        var observed: ObservationToken?
        do {
            let context = Context(name: "short-lived")
            weakContext = context
            observed = context.observe(\.requestID) { _ in }
        }
        #expect(weakContext == nil)
        _ = observed
    }

    @Test("Releasing an observed model finishes its change streams")
    func streamsFinish() async {
        var library: Library? = Library()
        let stream = library!.changes(of: \.books.count)
        library = nil
        var received: [Int] = []
        for await count in stream { received.append(count) }
        #expect(received == [0])
    }

    @Test("Nested batches deliver once, from the outermost")
    func nestedBatches() {
        let library = Library()
        let seen = Lines()
        let token = library.observe(\.books) { books in seen.append("\(books.count)") }
        ObservationRegistry.batch {
            library.books.append(Book(title: "A"))
            ObservationRegistry.batch {
                library.books.append(Book(title: "B"))
            }
            #expect(seen.all.isEmpty)
        }
        #expect(seen.all == ["2"])
        token.cancel()
    }
}
