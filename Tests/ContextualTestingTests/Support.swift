// Keys, services and library code shared by the tests of ContextualTesting.

import Contextual
import Synchronization

/// A client whose every call counts: a stateful default, which leaks between tests unless each test
/// context computes it afresh.
final class CallCounter: Sendable {
    private let calls = Atomic(0)

    func next() -> Int {
        calls.wrappingAdd(1, ordering: .relaxed).newValue
    }
}

enum CallCounterKey: ContextKey {
    static var defaultValue: CallCounter { CallCounter() }
}

/// A key with a test value of its own.
enum GreetingKey: ContextKey {
    static var defaultValue: String { "production" }
    static var testValue: String { "test" }
}

enum RequestNumberKey: ContextKey {
    static var defaultValue: Int { 0 }
}

/// A key that tests must set: its test value is unimplemented, with a placeholder.
enum PaymentsKey: ContextKey {
    static var defaultValue: String { "live payments" }
    static var testValue: String { unimplemented(placeholder: "no payments") }
}

/// A key whose test value is unimplemented without a placeholder: a read returns the default.
enum LegacyKey: ContextKey {
    static var defaultValue: Int { 42 }
    static var testValue: Int { unimplemented() }
}

extension ContextValues {
    var callCounter: CallCounter {
        get { self[CallCounterKey.self] }
        set { self[CallCounterKey.self] = newValue }
    }

    var greeting: String {
        get { self[GreetingKey.self] }
        set { self[GreetingKey.self] = newValue }
    }

    var requestNumber: Int {
        get { self[RequestNumberKey.self] }
        set { self[RequestNumberKey.self] = newValue }
    }

    var payments: String {
        get { self[PaymentsKey.self] }
        set { self[PaymentsKey.self] = newValue }
    }

    var legacy: Int {
        get { self[LegacyKey.self] }
        set { self[LegacyKey.self] = newValue }
    }
}

/// A service bound, through `@Injected`, to the context current when it is made.
struct Greeter: Sendable {
    @Injected(\.greeting) var greeting
    @Injected(\.requestNumber) var requestNumber
}

/// Library code that reads the current context, as a library that knows nothing of tests does.
func libraryGreeting() -> String {
    Context.current[\.greeting]
}

/// An object a test provides in place of the real one.
protocol Database: Sendable {
    var name: String { get }
}

struct LiveDatabase: Database {
    var name: String { "live" }
}

struct FakeDatabase: Database {
    var name: String { "fake" }
}

/// A connection built once per context by a singleton provider.
final class Connection: Sendable {
    let number: Int

    init(number: Int) {
        self.number = number
    }
}
