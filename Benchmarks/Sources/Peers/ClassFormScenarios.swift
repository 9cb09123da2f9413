import Contextual

// MARK: - @Injected held in a class (target f)

/// `@Injected` as a `var` of a `final class` (the struct form is ``flagshipGroup``).
public let injectedInClassGroup = "@Injected key path, a var of a final class"

/// `Injected` as a `let` of a `final class`, read as `database()`: the class form the documentation of
/// `Injected` gives for a `Sendable` class.
public let injectedLetInClassGroup = "Injected key path, a let of a final class, read as database()"

/// The struct form's service, `InjectedConsumer`, as a class.
final class InjectedClassConsumer {
    @Injected(\.database) var database
}

/// The same with the documented class form.
final class InjectedLetClassConsumer: Sendable {
    let database = Injected(\.database)
}

let classFormScenarios: [Scenario] = [
    Scenario(injectedLetInClassGroup, .contextual) {
        let consumer = ContextualFixture.root.run { InjectedLetClassConsumer() }
        consume(consumer.database())
        return { iterations in for _ in 0..<iterations { consume(consumer.database()) } }
    },
    Scenario(injectedInClassGroup, .contextual) {
        let consumer = OneThreadAtATime(ContextualFixture.root.run { InjectedClassConsumer() })
        consume(consumer.value.database)
        return { iterations in
            let consumer = consumer.value
            for _ in 0..<iterations { consume(consumer.database) }
        }
    },
]
