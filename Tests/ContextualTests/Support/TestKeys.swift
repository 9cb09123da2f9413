@testable import Contextual

// MARK: - Keys used across the suites

enum RequestIDKey: ContextKey {
    static var defaultValue: String { "none" }
}

enum TagsKey: ContextKey {
    static var defaultValue: [String] { [] }
}

enum VerbosityKey: ContextKey {
    static var defaultValue: Int { 0 }
}

extension ContextValues {
    var requestID: String {
        get { self[RequestIDKey.self] }
        set { self[RequestIDKey.self] = newValue }
    }

    var tags: [String] {
        get { self[TagsKey.self] }
        set { self[TagsKey.self] = newValue }
    }

    var verbosity: Int {
        get { self[VerbosityKey.self] }
        set { self[VerbosityKey.self] = newValue }
    }
}

extension Context {
    /// A dedicated modifier, the `.lineLimit(2)` pattern.
    func verbosity(_ level: Int) -> Context {
        child(\.verbosity, level)
    }
}

// MARK: - Objects

final class Database: Sendable {
    let url: String

    init(url: String) {
        self.url = url
    }
}

protocol Store: Sendable {
    var kind: String { get }
}

struct MemoryStore: Store {
    var kind: String { "memory" }
}

// MARK: - Counting

/// A thread-safe counter for side effects that tests count (default computations, constructions).
final class Counter: Sendable {
    // `Locked` rather than `Mutex`: ThreadSanitizer on Linux does not see a contended `Mutex` hand over,
    // and `Locked` announces its lock sections to it (see `ThreadSanitizerAnnotations`).
    private let value = Locked.make(0)

    func increment() {
        value.withLock { $0 += 1 }
    }

    func decrement() {
        value.withLock { $0 -= 1 }
    }

    var count: Int { value.withLock { $0 } }
}

/// Collects values delivered to handlers, from any thread.
final class Collector<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>.make([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] { values.withLock { $0 } }
    var count: Int { values.withLock { $0.count } }
}

// MARK: - An observable model: the SwiftUI docs' Library, rewritten

struct Book: Sendable, Equatable {
    var title: String
}

final class Library: ObservableModel, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    @Observed var books: [Book] = []
    @Observed var name = "City Library"
    @Observed var database = Database(url: "library-db")

    var bookCount: Int { books.count }
}

enum LibraryKey: ContextKey {
    static var defaultValue: Library? { nil }
}

extension ContextValues {
    var library: Library? {
        get { self[LibraryKey.self] }
        set { self[LibraryKey.self] = newValue }
    }
}
