import Synchronization
import Testing

@testable import Contextual

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Keys and objects for provider tests

enum DatabaseURLKey: ContextKey {
    static var defaultValue: String { "postgres://default" }
}

enum HTTPClientKey: ContextKey {
    static var defaultValue: HTTPClient { HTTPClient(name: "default") }
}

extension ContextValues {
    var databaseURL: String {
        get { self[DatabaseURLKey.self] }
        set { self[DatabaseURLKey.self] = newValue }
    }

    var httpClient: HTTPClient {
        get { self[HTTPClientKey.self] }
        set { self[HTTPClientKey.self] = newValue }
    }
}

final class HTTPClient: Sendable {
    let name: String

    init(name: String) {
        self.name = name
    }
}

/// A connection that counts how many were made, and how many are alive.
final class Connection: Sendable {
    let url: String
    private let live: Counter?

    init(url: String, live: Counter? = nil) {
        self.url = url
        self.live = live
        live?.increment()
    }

    deinit {
        live?.decrement()
    }
}

/// A scoped object that records its shutdown in `log`, and may fail it.
final class Transaction: ScopeShutdown {
    let id: String
    let log: Collector<String>
    let failure: (any Error)?

    init(id: String, log: Collector<String>, failure: (any Error)? = nil) {
        self.id = id
        self.log = log
        self.failure = failure
    }

    func shutdown() async throws {
        log.append("shutdown \(id)")
        if let failure { throw failure }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { "TestFailure(\(reason))" }
}

// Types that only name providers in cycle tests.
final class ServiceA: Sendable {}
final class ServiceB: Sendable {}
final class ServiceC: Sendable {}

// MARK: - Gate

/// Spins until `flag` is set, blocking the calling thread, for at most ``waitLimit``: a regression fails
/// instead of hanging. Only for what a thread of its own sets (see ``blockingWaitUntil(upTo:_:)``).
///
/// - Returns: Whether `flag` was set.
@discardableResult
func spinUntil(_ flag: borrowing Atomic<Bool>) -> Bool {
    blockingWaitUntil { flag.load(ordering: .sequentiallyConsistent) }
}

/// A one-shot gate that threads can block on until it opens.
final class Gate: Sendable {
    private let isOpen = Locked.make(false)

    func open() {
        isOpen.withLock { $0 = true }
    }

    /// Blocks until the gate opens, at most ``waitLimit``: a gate that stays closed (what was to open it
    /// never ran) records an issue at `sourceLocation` (the caller's line by default: on a thread of its
    /// own, no test is current to name) and lets the test go on to fail instead of hanging.
    func wait(sourceLocation: SourceLocation = #_sourceLocation) {
        // Checked every 100 µs: some tests pass a gate thousands of times.
        if !blockingWaitUntil(checkingEveryMicroseconds: 100, { isOpen.withLock { $0 } }) {
            Issue.record(
                "A gate stayed closed for \(waitLimit): what was to open it never ran",
                sourceLocation: sourceLocation
            )
        }
    }
}

// MARK: - Threads

/// Runs `body` on a thread of its own and returns its result: for tests whose code blocks (a gate, a
/// factory waiting for another), which must not block the few threads of the cooperative pool.
func onThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        let work = ThreadWork { continuation.resume(returning: body()) }
        var thread = pthread_t()
        let created = pthread_create(
            &thread,
            nil,
            { raw in
                Unmanaged<ThreadWork>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            },
            Unmanaged.passRetained(work).toOpaque()
        )
        precondition(created == 0, "pthread_create failed with \(created)")
        pthread_detach(thread)
    }
}

private final class ThreadWork: Sendable {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}
