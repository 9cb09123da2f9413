// `withContinuousTracking` calls its handler one call at a time: a change on another thread while the
// handler runs has it called again once it returns, with the newest value last.

import Synchronization
import Testing

@testable import Contextual

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the handler shares with the test.
private final class HandlerProbe: Sendable {
    let running = Atomic<Bool>(false)
    let overlaps = Atomic<Int>(0)
    let entered = Atomic<Bool>(false)
    let release = Atomic<Bool>(false)
    let finished = Collector<Int>()
}

@Suite("withContinuousTracking: one call of its handler at a time, the newest value last")
struct ContinuousTrackingOrderTests {
    @Test(
        "A change while the handler runs on another thread does not call it again meanwhile; the last value lands last"
    )
    func changeWhileTheHandlerRuns() async {
        let app = Context(name: "app") { $0.verbosity = 0 }
        let probe = HandlerProbe()
        let token = ObservationRegistry.withContinuousTracking {
            app[\.verbosity]
        } onChange: { value in
            if probe.running.exchange(true, ordering: .sequentiallyConsistent) {
                probe.overlaps.add(1, ordering: .sequentiallyConsistent)
            }
            if value == 1 {
                probe.entered.store(true, ordering: .sequentiallyConsistent)
                spinUntil(probe.release)  // the first call is slow: another thread's change comes meanwhile
            }
            probe.finished.append(value)
            probe.running.store(false, ordering: .sequentiallyConsistent)
        }
        async let first: Void = onThread { app.update { $0.verbosity = 1 } }
        #expect(await onThread { spinUntil(probe.entered) })
        app.update { $0.verbosity = 2 }  // while the handler still runs with 1
        probe.release.store(true, ordering: .sequentiallyConsistent)
        await first
        #expect(probe.overlaps.load(ordering: .sequentiallyConsistent) == 0, "the handler ran twice at once")
        #expect(probe.finished.all.last == 2, "the handler finished with \(probe.finished.all): 2 is the value now")
        withExtendedLifetime(token) {}
    }
}
