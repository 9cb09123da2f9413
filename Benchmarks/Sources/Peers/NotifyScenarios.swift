import Contextual
import Observation
import OpenCombine

// MARK: - Notifications against OpenCombine and Observation (target e)

/// Notify with 1 subscriber (Contextual's row is in `allScenarios`).
public let notifyOneGroup = "notify, 1 subscriber"

/// Notify with nobody subscribed (Contextual's row is in `allScenarios`).
public let notifyNoneGroup = "notify, 0 subscribers"

/// A read of an observed property with nobody tracking (Contextual's row is in `allScenarios`).
public let observedReadGroup = "observed read, nobody tracking"

/// OpenCombine's `@Published` in an `ObservableObject`, as it is used.
final class PublishedCounter: ObservableObject {
    @Published var value = 0
}

/// The toolchain's Observation.
@Observable
final class ObservableCounter {
    var value = 0
}

let notifyScenarios: [Scenario] = [
    Scenario(notifyOneGroup, .openCombine) {
        let counter = PublishedCounter()
        let subscription = counter.$value.sink { consume($0) }
        let state = OneThreadAtATime((counter, subscription))
        return { iterations in
            let counter = state.value.0
            for index in 0..<iterations { counter.value = index &+ 1 }
        }
    },
    Scenario(notifyNoneGroup, .observation) {
        let counter = OneThreadAtATime(ObservableCounter())
        return { iterations in
            let counter = counter.value
            for index in 0..<iterations { counter.value = index &+ 1 }
        }
    },
    Scenario(observedReadGroup, .observation) {
        let counter = OneThreadAtATime(ObservableCounter())
        return { iterations in
            let counter = counter.value
            for _ in 0..<iterations { consume(counter.value) }
        }
    },
]
