import Testing

@testable import Contextual

/// A thread keeps the frame of its last synchronous build for its next one (a request that builds its
/// scoped objects allocates no frame): a reused frame must carry nothing of the build it served.
@Suite("Resolution frames reused across builds")
struct ResolutionFrameReuseTests {
    /// An object a factory captures, to see whether anything still holds the factory.
    final class Captured: Sendable {}

    @Test("A build after nested ones reports its own resolution path, with nothing left of the earlier builds")
    func reusedFrameReportsItsOwnPath() throws {
        let app = Context(name: "app") {
            $0.provide(ServiceA.self, lifetime: .scoped) { request in
                _ = try request.require(ServiceB.self)
                return ServiceA()
            }
            $0.provide(ServiceB.self, lifetime: .scoped) { _ in ServiceB() }
            $0.provide(ServiceC.self, lifetime: .transient) { request in
                _ = try request.require(ServiceC.self)
                return ServiceC()
            }
        }
        // Nested builds, then top-level ones, on this thread: their frames are kept and reused.
        for _ in 0..<3 {
            let request = app.scope(name: "request")
            _ = try request.require(ServiceA.self)
            _ = try request.require(ServiceB.self)
        }
        // The thread kept the frame of its last build: the next build runs in it.
        #expect(ThreadSlot.spareResolutionFrame.word != 0)
        let error = #expect(throws: ContextError.self) { try app.scope(name: "request").require(ServiceC.self) }
        #expect(error?.code == .cycle)
        #expect(error?.resolutionPath == ["ServiceC (transient)", "ServiceC (transient)"])
    }

    @Test("A failing build in a reused frame reports the path of its own builds, walked to the top")
    func reusedFrameReportsItsWholePath() throws {
        let app = Context(name: "app") {
            $0.provide(ServiceA.self, lifetime: .scoped) { request in
                _ = try request.require(ServiceB.self)
                return ServiceA()
            }
            $0.provide(ServiceB.self, lifetime: .transient) { _ in throw TestFailure(reason: "no B") }
            $0.provide(ServiceC.self, lifetime: .scoped) { request in
                _ = try request.require(ServiceA.self)
                return ServiceC()
            }
        }
        // Builds nested three deep leave their frames behind as the thread's spare, one after another.
        for _ in 0..<3 { _ = try? app.scope(name: "request").require(ServiceC.self) }
        #expect(ThreadSlot.spareResolutionFrame.word != 0)
        let error = #expect(throws: ContextError.self) { try app.scope(name: "request").require(ServiceA.self) }
        #expect(error?.code == .factoryFailed)
        // A → B only: nothing of the C → A → B paths the reused frames served before.
        #expect(error?.resolutionPath == ["ServiceA (scoped)", "ServiceB (transient)"])
    }

    @Test("The frame a thread keeps for its next build holds neither the provider nor what its factory captured")
    func keptFrameHoldsNothing() throws {
        weak var weakCaptured: Captured?
        weak var weakApp: Context?
        do {
            let captured = Captured()
            weakCaptured = captured
            let app = Context(name: "app") {
                $0.provide(ServiceA.self, lifetime: .scoped) { _ in
                    withExtendedLifetime(captured) { ServiceA() }
                }
            }
            weakApp = app
            let request = app.scope(name: "request")
            _ = try request.require(ServiceA.self)
        }
        // The build ended on this thread, whose spare frame is now the one it ran in.
        #expect(weakApp == nil)
        #expect(weakCaptured == nil)
    }
}
