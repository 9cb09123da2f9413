import Contextual

// MARK: - Cost by size of the wiring

/// Registering `count` providers in one block: a root made with them, every registration form in turn
/// (a provider of each lifetime, an async one, a forwarding, a factory, an object, a key's value, and one
/// more provider of a type that many are added for). Counted at 1,000, 10,000 and 100,000 by
/// `contextual-count`, whose targets require each tenfold size to cost at most 12x the size before it.
public func registrationGroup(_ count: Int) -> String {
    "register \(count) providers in one block"
}

/// The sizes ``scalingScenarios`` counts.
public let registrationSizes = [1_000, 10_000, 100_000]

/// The scenarios whose cost grows with a size: not among ``everyScenario`` (package-benchmark would
/// repeat them a thousand times per iteration), counted by `contextual-count` alone.
public let scalingScenarios: [Scenario] = registrationSizes.map { count in
    Scenario(registrationGroup(count), .contextual) {
        let registrations = Registrations.make(count)
        return { iterations in
            for _ in 0..<iterations {
                consume(Context(name: "app") { values in for register in registrations { register(&values) } })
            }
        }
    }
}

// MARK: - Distinct types

/// Registrations of distinct types, made from nested generic types (one per bit of an index), so that
/// any number of them can be made without writing the types out.
private enum Registrations {
    typealias Register = @Sendable (inout ContextValues) -> Void

    static func make(_ count: Int) -> [Register] {
        var all: [Register] = []
        all.reserveCapacity(count)
        var bits = 1
        while 1 << bits < count { bits += 1 }
        collect(Leaf.self, depth: bits, into: &all, count: count)
        return all
    }

    private static func collect<T>(_ type: T.Type, depth: Int, into all: inout [Register], count: Int) {
        if all.count >= count { return }
        if depth > 0 {
            collect(Zero<T>.self, depth: depth - 1, into: &all, count: count)
            collect(One<T>.self, depth: depth - 1, into: &all, count: count)
            return
        }
        switch all.count % 9 {
        case 0: all.append { $0.provide(Made<T>.self, lifetime: .singleton) { _ in Made<T>() } }
        case 1: all.append { $0.provide(Made<T>.self, lifetime: .scoped) { _ in Made<T>() } }
        case 2: all.append { $0.provide(Made<T>.self, lifetime: .transient) { _ in Made<T>() } }
        case 3: all.append { $0.provide(Made<T>.self, lifetime: .singleton) { _ async in Made<T>() } }
        case 4:
            all.append {
                $0.provide(Made<T>.self, lifetime: .singleton) { _ in Made<T>() }
                $0.forward(Forwarded<T>.self, to: Made<T>.self)
            }
        case 5: all.append { $0.provideFactory(Made<T>.self) { (_: Context, name: String) in Made<T>(name) } }
        case 6: all.append { $0.provide(Made<T>()) }
        case 7: all.append { $0[Key<T>.self] = 1 }
        default: all.append { $0.addProvider(Leaf.self, lifetime: .transient) { _ in Leaf() } }
        }
    }
}

private final class Leaf: Sendable {}
private enum Zero<Rest> {}
private enum One<Rest> {}

private final class Made<T>: Sendable {
    let name: String
    init(_ name: String = "") { self.name = name }
}

/// A type a provider is forwarded to (never resolved here: only registered).
private enum Forwarded<T>: Sendable {}

private enum Key<T>: ContextKey {
    static var defaultValue: Int { 0 }
}
