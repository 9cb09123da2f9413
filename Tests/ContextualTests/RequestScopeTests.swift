import Foundation
import Testing

@testable import Contextual

/// A scoped object that counts its shutdowns, and throws from them when told to.
private final class RecordingWork: ScopeShutdown {
    struct CommitFailed: Error, CustomStringConvertible {
        var description: String { "commit failed" }
    }

    let shutdowns = Locked<Int>.make(0)
    let fails: Bool

    init(fails: Bool) { self.fails = fails }

    func shutdown() async throws {
        shutdowns.withLock { $0 += 1 }
        if fails { throw CommitFailed() }
    }
}

/// An app whose scoped `RecordingWork` fails to shut down when `fails`, reporting late failures into
/// `reported`.
private func makeApp(fails: Bool = false, reported: Locked<[ContextError]>) -> Context {
    Context(name: "app") {
        $0.shutdownFailureHandler = { error in reported.withLock { $0.append(error) } }
        $0.provide(RecordingWork.self, lifetime: .scoped) { _ in RecordingWork(fails: fails) }
    }
}

@Suite("A request scope ends exactly once, when its last holder ends it or when it is dropped")
struct RequestScopeTests {
    // MARK: - Ending

    @Test("end() shuts the scope down once; a second end does nothing")
    func endShutsDownOnce() async throws {
        let reported = Locked<[ContextError]>.make([])
        let request = RequestScope(of: makeApp(reported: reported))
        let work = try request.context.require(RecordingWork.self)
        #expect(!request.isEnded)
        try await request.end()
        #expect(request.isEnded)
        #expect(request.context.isEnded)
        try await request.end()
        #expect(work.shutdowns.withLock { $0 } == 1)
        #expect(reported.withLock { $0.isEmpty })
    }

    @Test("end() throws a failed shutdown, naming the request's ID, for the response to carry")
    func endThrowsFailure() async throws {
        let reported = Locked<[ContextError]>.make([])
        let request = RequestScope(of: makeApp(fails: true, reported: reported), requestID: "r-7")
        _ = try request.context.require(RecordingWork.self)
        let error = await #expect(throws: ContextError.self) { try await request.end() }
        #expect(error?.code == .shutdownFailed)
        #expect(error?.message.contains("'request r-7'") == true)
        #expect(error?.underlyingErrors.first is RecordingWork.CommitFailed)
        #expect(error?.httpStatusCode == 500)
        #expect(reported.withLock { $0.isEmpty })
    }

    @Test("A held scope ends at the last holder's end; a failure after the response goes to the handler")
    func lastHolderEnds() async throws {
        let reported = Locked<[ContextError]>.make([])
        let request = RequestScope(of: makeApp(fails: true, reported: reported), requestID: "r-8")
        let work = try request.context.require(RecordingWork.self)
        #expect(request.hold())
        try await request.end()  // the middleware's hold: the body still holds the scope
        #expect(!request.isEnded)
        #expect(work.shutdowns.withLock { $0 } == 0)
        await request.endAfterResponse()  // the body's hold: the last
        #expect(request.isEnded)
        #expect(work.shutdowns.withLock { $0 } == 1)
        let late = try #require(reported.withLock { $0.first })
        #expect(late.code == .shutdownFailed)
        #expect(late.message.contains("'request r-8'"))
        #expect(!request.hold())  // an ended scope can't be held again
    }

    @Test("A scope dropped with holds left is shut down, its failure reported to the handler")
    func droppedScopeEnds() async throws {
        let reported = Locked<[ContextError]>.make([])
        let app = makeApp(fails: true, reported: reported)
        var work: RecordingWork?
        do {
            let request = RequestScope(of: app, requestID: "dropped-1")
            work = try request.context.require(RecordingWork.self)
            request.hold()
        }
        // The scope is shut down by a task its deinit started: it runs when a thread is free.
        #expect(await waitUntil { reported.withLock { !$0.isEmpty } })
        #expect(work?.shutdowns.withLock { $0 } == 1)
        #expect(reported.withLock { $0.first?.message.contains("'request dropped-1'") } == true)
    }

    @Test("Holders ending at once on many threads shut the scope down exactly once")
    func concurrentEnds() async throws {
        let reported = Locked<[ContextError]>.make([])
        let app = makeApp(reported: reported)
        for _ in 0..<200 {
            let request = RequestScope(of: app)
            let work = try request.context.require(RecordingWork.self)
            for _ in 0..<7 { request.hold() }
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        if index.isMultiple(of: 2) {
                            try? await request.end()
                        } else {
                            await request.endAfterResponse()
                        }
                    }
                }
            }
            #expect(request.isEnded)
            #expect(work.shutdowns.withLock { $0 } == 1)
        }
        #expect(reported.withLock { $0.isEmpty })
    }

    @Test("A scope held k times stays open through k - 1 ends, and the k-th shuts it down")
    func kHolds() async throws {
        let reported = Locked<[ContextError]>.make([])
        let request = RequestScope(of: makeApp(reported: reported))
        let work = try request.context.require(RecordingWork.self)
        for _ in 0..<4 { #expect(request.hold()) }
        for _ in 0..<4 {
            try await request.end()
            #expect(!request.isEnded)
            #expect(work.shutdowns.withLock { $0 } == 0)
        }
        try await request.end()
        #expect(request.isEnded)
        #expect(work.shutdowns.withLock { $0 } == 1)
    }

    @Test("A hold racing the last end either keeps the scope open for its holder or fails; never both")
    func holdRacesLastEnd() async throws {
        let reported = Locked<[ContextError]>.make([])
        let app = makeApp(reported: reported)
        for _ in 0..<300 {
            let request = RequestScope(of: app)
            let work = try request.context.require(RecordingWork.self)
            async let held = Task.detached { request.hold() }.value
            async let ended: Void = Task.detached { try? await request.end() }.value
            let (didHold, _) = await (held, ended)
            if didHold {
                // The hold came first: the scope is open for its holder, who ends it.
                #expect(!request.isEnded)
                #expect(work.shutdowns.withLock { $0 } == 0)
                await request.endAfterResponse()
            }
            #expect(request.isEnded)
            #expect(work.shutdowns.withLock { $0 } == 1)
        }
    }

    @Test("runThenEnd ends the hold when its body throws, and rethrows")
    func runThenEndThrows() async throws {
        struct WriteFailed: Error {}
        let reported = Locked<[ContextError]>.make([])
        let request = RequestScope(of: makeApp(reported: reported))
        let work = try request.context.require(RecordingWork.self)
        await #expect(throws: WriteFailed.self) {
            try await request.runThenEnd { throw WriteFailed() }
        }
        #expect(request.isEnded)
        #expect(work.shutdowns.withLock { $0 } == 1)
    }

    @Test("A scope whose context was shut down directly is ended and can't be held")
    func directShutdown() async throws {
        let reported = Locked<[ContextError]>.make([])
        let request = RequestScope(of: makeApp(reported: reported))
        let work = try request.context.require(RecordingWork.self)
        try await request.context.shutdown()
        #expect(request.isEnded)
        #expect(!request.hold())
        try await request.end()  // the maker's hold: nothing more to shut down
        #expect(work.shutdowns.withLock { $0 } == 1)
    }

    // MARK: - Running

    @Test("run() makes the request's scope Context.current, with the overrides set from the request ID")
    func runSetsCurrent() async throws {
        let reported = Locked<[ContextError]>.make([])
        let app = makeApp(reported: reported)
        let request = RequestScope(of: app, requestID: "abc-1") { values, id in values.requestID = "seen \(id)" }
        let greeting = await request.run { Context.current[\.requestID] }
        #expect(greeting == "seen abc-1")
        #expect(app[\.requestID] == "none")
        #expect(request.context.name == "request abc-1")
        try await request.end()
    }

    // MARK: - Request IDs

    @Test("A request ID from the client is kept when it is 1 to 128 visible ASCII characters")
    func usableIDsAreKept() {
        let app = Context(name: "app")
        for id in ["r-1", "9f1c2a7e-55d0-4b8e-9a57-2f9b4f3c1e11", String(repeating: "x", count: 128), "a!~"] {
            #expect(RequestScope(of: app, requestID: id).requestID == id)
        }
    }

    @Test(
        "A request ID that is empty, too long, or carries spaces, control or non-ASCII characters is replaced",
        arguments: ["", " ", "a b", "line\nbreak", "tab\t", String(repeating: "x", count: 129), "café", "\u{7F}"]
    )
    func unusableIDsAreReplaced(id: String) {
        let request = RequestScope(of: Context(name: "app"), requestID: id)
        #expect(request.requestID != id)
        #expect(request.requestID.hasPrefix(RequestIDs.shared.prefix + "-"))
    }

    @Test("New request IDs share the process's prefix and never repeat, on many threads")
    func newIDsAreUnique() async {
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask { (0..<500).map { _ in RequestScope(of: Context(name: "app")).requestID } }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(ids).count == 2000)
        #expect(ids.allSatisfy { $0.hasPrefix(RequestIDs.shared.prefix + "-") })
    }
}
