// A scope's shutdown waits for a transient build in flight that the scope will own, as it does for its
// scoped and singleton builds, and shuts its object down before returning.

import Synchronization
import Testing

@testable import Contextual

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The flags with which the test holds a factory inside its build.
private final class BuildControl: Sendable {
    let started = Atomic<Bool>(false)
    let release = Atomic<Bool>(false)
}

@Suite("Shutdown waits for the transient builds its scope owns")
struct TransientShutdownWaitTests {
    @Test("A transient build in flight when its scope shuts down is waited for and shut down before shutdown returns")
    func transientBuildInFlightAtShutdown() async throws {
        let log = Collector<String>()
        let control = BuildControl()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .transient) { _ in
                control.started.store(true, ordering: .sequentiallyConsistent)
                waitUntil(control.release)
                return Transaction(id: "late", log: log)
            }
        }
        let request = app.scope(name: "request")
        async let resolved: ContextError? = onThread { () -> ContextError? in
            do throws(ContextError) {
                _ = try request.require(Transaction.self)
                return nil
            } catch {
                return error
            }
        }
        await onThread { waitUntil(control.started) }
        // Lets the build end once the shutdown has begun (at most 10 s from now, whether the shutdown waits
        // for it or not: nothing hangs), and a little later, so that the shutdown is waiting by then.
        let opener = Task.detached {
            for _ in 0..<1_000 where !request.isEnded { try? await Task.sleep(for: .milliseconds(10)) }
            try? await Task.sleep(for: .milliseconds(100))
            control.release.store(true, ordering: .sequentiallyConsistent)
        }
        try await request.shutdown()
        let shutDownBeforeReturning = log.all
        await opener.value
        let error = await resolved
        #expect(shutDownBeforeReturning == ["shutdown late"], "shutdown() returned before the build it owns ended")
        #expect(error?.code == .scopeEnded)  // never handed out
    }
}
