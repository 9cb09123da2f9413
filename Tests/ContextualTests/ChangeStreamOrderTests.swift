// `changes(of:)` gives the value it read first, then each newer one: a change that lands while the
// stream subscribes comes after the first value, never before it (the stream keeps the newest element
// only, so the consumer would otherwise end on the older value).

import Testing

@testable import Contextual

/// A model whose `countOnce` changes `count` right after reading it, the first time: a write that lands
/// between the stream's first read and its subscription, as another thread's write may.
private final class Counted: ObservableModel, @unchecked Sendable {
    let observationRegistry = ObservationRegistry()
    @Observed var count = 0
    private let wrote = Locked.make(false)

    var countOnce: Int {
        let value = count
        if !wrote.withLock({ $0 }) {
            wrote.withLock { $0 = true }
            count = value + 1
        }
        return value
    }
}

@Suite("changes(of:): the current value first, then each new one, the newest last")
struct ChangeStreamOrderTests {
    @Test("A change between the stream's first read and its subscription reaches the consumer")
    func changeWhileSubscribing() async {
        let model = Counted()
        let stream = model.changes(of: \.countOnce)
        // The model holds 1 from here on, and nothing changes it again.
        let seen = Locked<[Int]>.make([])
        let consumer = Task {
            for await value in stream {
                seen.withLock { $0.append(value) }
                if value == 1 { break }
            }
        }
        // Bounded: the consumer waits for a value that may never come.
        await waitUntil { seen.withLock { $0.last == 1 } }
        consumer.cancel()
        await consumer.value
        let values = seen.withLock { $0 }
        #expect(model.count == 1)
        #expect(values.last == 1, "the stream gave \(values), never the value the model holds")
    }

    @Test("A context's stream made while another thread updates it ends with the value the context holds")
    func streamRacingAnUpdate() async {
        // The race above, with a real writer: it loses the last value in about 1 round in 200 here.
        for round in 0..<2_000 {
            let app = Context(name: "app") { $0.verbosity = 0 }
            let request = app.child(name: "request")
            let start = Gate()
            async let writer: Void = onThread {
                start.wait()
                app.update { $0.verbosity = 1 }
            }
            start.open()
            let stream = request.changes(of: \.verbosity)
            await writer
            // Nothing changes the context from here on: the stream must end with 1.
            let seen = Locked<[Int]>.make([])
            let consumer = Task {
                for await value in stream {
                    seen.withLock { $0.append(value) }
                    if value == 1 { break }
                }
            }
            // The consumer is a task: on a loaded machine it may wait a while for a thread. Checked every
            // millisecond: 2,000 rounds.
            await waitUntil(checkingEvery: .milliseconds(1)) { seen.withLock { $0.last == 1 } }
            consumer.cancel()
            await consumer.value
            let values = seen.withLock { $0 }
            if values.last != 1 {
                Issue.record("round \(round): the stream gave \(values) while the context holds 1")
                return
            }
        }
    }
}
