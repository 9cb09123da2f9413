import Foundation
import Testing

@testable import Contextual

/// An object whose shutdown throws.
private final class FailingConnection: ScopeShutdown {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "connection refused to close" }
    }

    func shutdown() async throws { throw Refused() }
}

@Suite("Shutdowns that no shutdown() call can throw reach the shutdown failure handler")
struct LateShutdownTests {
    @Test("An object still being built when its scope gave up waiting is shut down later, and its failure is reported")
    func lateObjectFailureIsReported() async throws {
        let gate = Gate()
        let started = Gate()
        let reported = Locked<[ContextError]>.make([])
        let app = Context(name: "app") {
            $0.buildWaitLimit = .milliseconds(200)
            $0.shutdownFailureHandler = { error in reported.withLock { $0.append(error) } }
            $0.provide(FailingConnection.self, lifetime: .scoped) { _ in
                started.open()
                gate.wait()
                return FailingConnection()
            }
        }
        let request = app.scope(name: "request")
        let builder = Thread { _ = try? request.require(FailingConnection.self) }
        builder.start()
        await onThread { started.wait() }
        let error = await #expect(throws: ContextError.self) { try await request.shutdown() }
        #expect(error?.code == .shutdownFailed)
        // The build still running counts among the objects it owns: not "1 of 0".
        #expect(error?.message.contains("failed for 1 of 1 object:") == true)
        #expect(error?.underlyingErrors.first.map { ($0 as? ContextError)?.code == .buildTimedOut } == true)
        gate.open()
        await waitUntil { !reported.withLock { $0.isEmpty } }
        let late = try #require(reported.withLock { $0.first })
        #expect(late.code == .shutdownFailed)
        #expect(late.message.contains("'request'"))
        #expect(late.message.contains("'FailingConnection (scoped)' threw connection refused to close"))
        #expect(late.underlyingErrors.first is FailingConnection.Refused)
    }

    @Test("By default a late failure's message goes to standard error")
    func defaultHandlerWritesToStandardError() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let context = Context(name: "late")
            context[\.shutdownFailureHandler](
                ContextError.shutdownFailed([("Pool (scoped)", FailingConnection.Refused())], of: 1, in: context)
            )
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            stderr.contains("shutting down 'late' failed for 1 of 1 object: 'Pool (scoped)' threw connection refused")
        )
    }
}

/// A transient that counts its shutdowns.
private final class Stopwatch: ScopeShutdown {
    let shutdowns: Counter

    init(shutdowns: Counter) { self.shutdowns = shutdowns }

    func shutdown() async throws { shutdowns.increment() }
}

@Suite("Transients that adopt ScopeShutdown are kept by a scope only")
struct TransientOwnershipTests {
    @Test("A root that is no scope keeps nothing of the transients it resolves, however many")
    func rootKeepsNothing() async throws {
        let shutdowns = Counter()
        weak var last: Stopwatch?
        let app = Context(name: "app") {
            $0.provide(Stopwatch.self, lifetime: .transient) { _ in Stopwatch(shutdowns: shutdowns) }
        }
        let service = app.child(name: "service")
        for _ in 0..<10_000 {
            last = try app.require(Stopwatch.self)
            _ = try service.require(Stopwatch.self)
        }
        #expect(last == nil)
        #expect(app.scopeStore.builtLabels.isEmpty)
        #expect(service.scopeStore.builtLabels.isEmpty)
        try await app.shutdown()
        #expect(shutdowns.count == 0)
    }

    @Test("A root that was shut down builds no transient it would have to shut down")
    func shutDownRootBuildsNoMore() async throws {
        let shutdowns = Counter()
        let app = Context(name: "app") {
            $0.provide(Stopwatch.self, lifetime: .transient) { _ in Stopwatch(shutdowns: shutdowns) }
        }
        _ = try app.require(Stopwatch.self)
        try await app.shutdown()
        let error = #expect(throws: ContextError.self) { try app.require(Stopwatch.self) }
        #expect(error?.code == .scopeEnded)
    }

    @Test("A transient resolved within a scope is shut down with that scope")
    func scopeShutsItDown() async throws {
        let shutdowns = Counter()
        let app = Context(name: "app") {
            $0.provide(Stopwatch.self, lifetime: .transient) { _ in Stopwatch(shutdowns: shutdowns) }
        }
        let request = app.scope(name: "request")
        let below = request.child(name: "handler")
        _ = try request.require(Stopwatch.self)
        _ = try below.require(Stopwatch.self)
        try await request.shutdown()
        #expect(shutdowns.count == 2)
    }
}
