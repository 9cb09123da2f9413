import Contextual

// MARK: - @Injected held in a class (issue 13, target f)

/// `@Injected` as a `var` of a `final class` (the struct form is ``flagshipGroup``).
public let injectedInClassGroup = "@Injected key path, a var of a final class"

/// The struct form's service, `InjectedConsumer`, as a class.
final class InjectedClassConsumer {
    @Injected(\.database) var database
}

let classFormScenarios: [Scenario] = [
    Scenario(injectedInClassGroup, .contextual) {
        let consumer = OneThreadAtATime(ContextualFixture.root.run { InjectedClassConsumer() })
        consume(consumer.value.database)
        return { iterations in
            let consumer = consumer.value
            for _ in 0..<iterations { consume(consumer.database) }
        }
    }
]
