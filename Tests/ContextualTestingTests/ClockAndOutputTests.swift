// The test helpers of the Contextual target: the immediate clock, the manual clock, the capturing output.

import Contextual
import Testing

@Suite("Test clocks and output")
struct ClockAndOutputTests {
    @Test("The immediate clock's sleeps return at once and move its time")
    func immediate() async throws {
        let clock = ImmediateClock()
        let start = ContinuousClock.now
        try await clock.sleep(for: .seconds(3600))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
        #expect(clock.now.offset == .seconds(3601))
        // An hour of sleeps, at once: generous for a loaded machine running the suites in parallel.
        #expect(ContinuousClock.now - start < .seconds(120))
        let erased: any Clock<Duration> = clock
        try await erased.sleep(for: .seconds(1))
        #expect(clock.now.offset == .seconds(3602))
    }

    @Test("The immediate clock's sleep throws when the task is cancelled")
    func immediateCancelled() async {
        let clock = ImmediateClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("The manual clock wakes a sleep only when advanced to its deadline")
    func manual() async throws {
        let clock = ManualClock()
        let woke = Task {
            try await clock.sleep(for: .seconds(5))
            return clock.now.offset
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 0)
        #expect(try await woke.value == .seconds(5))
        // A deadline already passed returns at once.
        try await clock.sleep(until: .init(offset: .seconds(1)), tolerance: nil)
    }

    @Test("The manual clock's sleep throws at once when its task is cancelled")
    func manualCancelled() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("Both clocks serve as any Clock<Duration>")
    func existential() {
        let clocks: [any Clock<Duration>] = [ImmediateClock(), ManualClock()]
        #expect(clocks.allSatisfy { $0.minimumResolution == .zero })
    }

    @Test("Both clocks count time in one instant type, which compares and measures across them")
    func sharedInstant() async throws {
        #expect(ManualClock.Instant.self == ImmediateClock.Instant.self)
        #expect(ManualClock.Instant.self == TestClockInstant.self)
        let manual = ManualClock()
        let immediate = ImmediateClock()
        manual.advance(by: .seconds(5))
        try await immediate.sleep(for: .seconds(2))
        #expect(immediate.now < manual.now)
        #expect(immediate.now.duration(to: manual.now) == .seconds(3))
        #expect(manual.now == TestClockInstant(offset: .seconds(5)))
        let start = TestClockInstant()
        #expect(start.advanced(by: .seconds(2)) == immediate.now)
        #expect(Set([manual.now, immediate.now, TestClockInstant(offset: .seconds(5))]).count == 2)
    }

    @Test("The capturing output keeps what is written, from any thread")
    func capturingOutput() async {
        var output = CapturingOutput()
        print("hello", to: &output)
        let shared = output
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { shared.write("x") } }
        }
        #expect(output.lines.first == "hello")
        #expect(output.text.count == 16)
        output.removeAll()
        #expect(output.text.isEmpty)
        #expect(output.lines.isEmpty)
    }
}
