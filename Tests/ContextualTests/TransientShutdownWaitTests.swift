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
    @Test(
        "A transient build in flight when its scope shuts down is waited for and shut down before shutdown returns",
        .timeLimit(.minutes(1))
    )
    func transientBuildInFlightAtShutdown() async throws {
        let log = Collector<String>()
        let control = BuildControl()
        let app = Context(name: "app") {
            $0.provide(Transaction.self, lifetime: .transient) { _ in
                control.started.store(true, ordering: .sequentiallyConsistent)
                // Until the test lets it end: a bounded wait (`waitUntil`, 5 s) could end it before a
                // shutdown slowed down by a loaded machine has begun, and the test would see that instead.
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
        await onThread { waitUntil(control.started) }
        // Lets the build end once the shutdown waits for it; if the shutdown does not wait (a regression),
        // 60 s after it has begun, so that nothing hangs. The shutdown begins: it is called next.
        let opener = Task.detached {
            while !request.isEnded { try? await Task.sleep(for: .milliseconds(10)) }
            let begun = ContinuousClock.now
            while !request.scopeStore.isWaitingForBuilds, begun.duration(to: .now) < .seconds(60) {
                try? await Task.sleep(for: .milliseconds(1))
            }
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
