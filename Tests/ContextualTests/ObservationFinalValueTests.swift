// An observer of a context value racing writers gets the final value: a writer's notification reads the
// value and the sources' identity within the same versions, so a change landing in between cannot pair
// the older value with the newer identity (which that change's own notification would take for
// delivered). The test plays that interleaving step by step on a subscriber whose source it moves by
// hand.

import Testing

@testable import Contextual

/// What a context source sees, moved by the test: a value, the tree's generation, and the box holding
/// the value (its identity). `onNextRefresh` runs inside the next `refreshed()`: a change landing there.
private final class MovableSource: Sendable {
    private let state = Locked<(value: Int, generation: UInt64, box: UInt)>.make((0, 1, 100))
    private let hook = Locked<(@Sendable () -> Void)?>.make(nil)

    var current: (value: Int, generation: UInt64, box: UInt) { state.withLock { $0 } }

    func set(_ value: Int, generation: UInt64, box: UInt) {
        state.withLock { $0 = (value, generation, box) }
    }

    func onNextRefresh(_ action: @escaping @Sendable () -> Void) {
        hook.withLock { $0 = action }
    }

    func runHook() {
        let action = hook.withLock { hook in
            defer { hook = nil }
            return hook
        }
        action?()
    }
}

/// A read of a `MovableSource`, as a context's read is to its subscriber.
private struct MovableAccess: TrackedAccess {
    let source: MovableSource
    let generation: UInt64
    let box: UInt

    func subscribe(_ subscriber: any Subscriber) -> (token: ObservationToken, changedSinceRead: Bool) {
        (ObservationToken {}, false)
    }

    var version: UInt64 { generation }
    var identity: [UInt] { [box] }
    var isCurrent: Bool { source.current.box == box }
    var currentVersion: UInt64 { source.current.generation }
    var isContext: Bool { true }
    var identityMayHoldSameValue: Bool { true }

    func refreshed() -> any TrackedAccess {
        source.runHook()
        let now = source.current
        return MovableAccess(source: source, generation: now.generation, box: now.box)
    }
}

@Suite("Observers of a context value racing writers: the final value always arrives")
struct ObservationFinalValueTests {
    @Test("A change that lands while a writer's notification reads its sources again is still delivered")
    func changeDuringRefresh() {
        let source = MovableSource()
        let delivered = Collector<Int>()
        let subscriber = ValueSubscriber<Int>(
            evaluate: { source.current.value },
            handler: { delivered.append($0) },
            onEnd: {},
            read: [MovableAccess(source: source, generation: 1, box: 100)],
            initial: 0,
            specializedChange: nil
        )
        // Writer A stores 1 and notifies. While its notification reads the sources again, writer B stores 2.
        source.set(1, generation: 2, box: 101)
        source.onNextRefresh { source.set(2, generation: 3, box: 102) }
        subscriber.changedNow()  // writer A's notification
        subscriber.changedNow()  // writer B's notification
        #expect(delivered.all.last == 2, "delivered \(delivered.all) while the source holds 2")
    }
}
