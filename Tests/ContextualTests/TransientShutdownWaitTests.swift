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
    /// Set once the test's `shutdown()` returned.
    let shutdownReturned = Atomic<Bool>(false)
}

@Suite("Shutdown waits for the transient builds its scope owns")
struct TransientShutdownWaitTests {
    @Test(
        "A transient build in flight when its scope shuts down is waited for and shut down before shutdown returns",
        .timeLimit(.minutes(5))
    )
    func transientBuildInFlightAtShutdown() async throws {
        let log = Collector<String>()
        let control = BuildControl()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .transient) { _ in
                control.started.store(true, ordering: .sequentiallyConsistent)
                // Until the test lets it end: a bounded wait could end it before a shutdown slowed down by
                // a loaded machine has begun, and the test would see that instead.
                while !control.release.load(ordering: .sequentiallyConsistent) { usleep(100) }
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
        #expect(await onThread { spinUntil(control.started) })
        // Lets the build end once the shutdown waits for it, or, if the shutdown does not wait (a
        // regression), once it returned, so that nothing hangs. The shutdown begins: it is called next.
        let opener = Task.detached {
            await waitUntil {
                request.scopeStore.isWaitingForBuilds
                    || control.shutdownReturned.load(ordering: .sequentiallyConsistent)
            }
            control.release.store(true, ordering: .sequentiallyConsistent)
        }
        try await request.shutdown()
        let shutDownBeforeReturning = log.all
        control.shutdownReturned.store(true, ordering: .sequentiallyConsistent)
        await opener.value
        let error = await resolved
        #expect(shutDownBeforeReturning == ["shutdown late"], "shutdown() returned before the build it owns ended")
        #expect(error?.code == .scopeEnded)  // never handed out
    }
}
