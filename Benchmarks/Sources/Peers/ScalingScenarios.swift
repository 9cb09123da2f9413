import Contextual

// MARK: - Cost by size of the wiring

/// Registering `count` providers in one block: a root made with them, every registration form in turn
/// (a provider of each lifetime, an async one, a forwarding, a factory, an object, a key's value, and one
/// more provider of a type that many are added for). Counted at 1,000, 10,000 and 100,000 by
/// `contextual-count`, whose targets require each tenfold size to cost at most 12x the size before it.
public func registrationGroup(_ count: Int) -> String {
    "register \(count) providers in one block"
}

/// The sizes the registration scenarios count.
public let registrationSizes = [1_000, 10_000, 100_000]

/// An operation whose cost grows with the number of providers, members or subscribers: counted at
/// `small` and at ten times that by `contextual-count`, whose targets require the larger to cost at most
/// 12x the smaller.
public struct ScalingOperation: Sendable {
    public let name: String
    /// The smaller size; operations that build every provider start lower, so that valgrind's run of
    /// the larger size stays within a CI step's time.
    public let small: Int
    public var sizes: [Int] { [small, 10 * small] }
}

/// The operations, by name; a scenario's group is ``scalingGroup(_:_:)``.
public let scalingOperations = [
    ScalingOperation(name: "make n members of a host, then release them", small: 1_000),
    ScalingOperation(name: "n members each set a container value", small: 1_000),
    ScalingOperation(name: "validate n providers", small: 300),
    ScalingOperation(name: "boot report of n providers", small: 300),
    ScalingOperation(name: "shut down a scope holding n scoped objects", small: 1_000),
    ScalingOperation(name: "resolveAll of n providers of one type", small: 1_000),
    ScalingOperation(name: "n subscribers to a key: subscribe, one update, cancel", small: 1_000),
]

/// The group of the operation named `name` at size `count`.
public func scalingGroup(_ name: String, _ count: Int) -> String {
    "\(name), n = \(count)"
}

/// The scenarios whose cost grows with a size: not among ``everyScenario`` (package-benchmark would
/// repeat them a thousand times per iteration), counted by `contextual-count` alone.
public let scalingScenarios: [Scenario] =
    registrationSizes.map { count in
        Scenario(registrationGroup(count), .contextual) {
            let registrations = Registrations.make(count).map(\.register)
            return { iterations in
                for _ in 0..<iterations {
                    consume(Context(name: "app") { values in for register in registrations { register(&values) } })
                }
            }
        }
    }
    + scalingOperations.enumerated().flatMap { index, operation in
        operation.sizes.map { count in
            Scenario(scalingGroup(operation.name, count), .contextual, prepare: operations(count)[index])
        }
    }

/// The operations of ``scalingOperations``, in that order, at size `count`.
private func operations(_ count: Int) -> [@Sendable () -> @Sendable (Int) -> Void] {
    [
        {
            let host = Context(name: "host")
            return { iterations in
                for _ in 0..<iterations {
                    var members: [Context] = []
                    members.reserveCapacity(count)
                    for _ in 0..<count { members.append(host.member(name: "member")) }
                    consume(members)
                }
            }
        },
        {
            let host = Context(name: "host")
            let members = OneThreadAtATime((0..<count).map { _ in host.member(name: "member") })
            return { iterations in
                for iteration in 0..<iterations {
                    for member in members.value { member.setContainerValue(\.moduleName, "module \(iteration)") }
                }
                consume(host.members.count)
            }
        },
        {
            let registrations = Registrations.make(count, synchronousOnly: true).map(\.register)
            let app = Context(name: "app") { values in for register in registrations { register(&values) } }
            return { iterations in for _ in 0..<iterations { consume(try? app.validate()) } }
        },
        {
            let registrations = Registrations.make(count).map(\.register)
            return { iterations in
                waitFor {
                    for _ in 0..<iterations {
                        let app = Context(name: "app") { values in for register in registrations { register(&values) } }
                        consume(await app.bootReport())
                    }
                }
            }
        },
        {
            let objects = Registrations.make(count, closing: true)
            let app = Context(name: "app") { values in for object in objects { object.register(&values) } }
            return { iterations in
                waitFor {
                    for _ in 0..<iterations {
                        let scope = app.scope(name: "request")
                        for object in objects { object.use(scope) }
                        try? await scope.shutdown()
                    }
                }
            }
        },
        {
            let app = Context(name: "app") { values in
                for _ in 0..<count { values.addProvider(Leaf.self, lifetime: .transient) { _ in Leaf() } }
            }
            return { iterations in for _ in 0..<iterations { consume(app.resolveAll(Leaf.self)) } }
        },
        {
            let app = Context(name: "app")
            return { iterations in
                for iteration in 0..<iterations {
                    let tokens = (0..<count).map { _ in app.observe(\.filler) { consume($0) } }
                    app.update { $0.filler = iteration + 1 }
                    for token in tokens { token.cancel() }
                }
            }
        },
    ]
}

private enum ModuleNameKey: ContainerValueKey {
    static var defaultValue: String { "unnamed" }
}

extension ContainerValues {
    fileprivate var moduleName: String {
        get { self[ModuleNameKey.self] }
        set { self[ModuleNameKey.self] = newValue }
    }
}

// MARK: - Distinct types

/// Registrations of distinct types, made from nested generic types (one per bit of an index), so that
/// any number of them can be made without writing the types out.
private enum Registrations {
    /// A registration, and a use of what it registers in a scope below it (for the closing objects).
    struct Registration {
        let register: @Sendable (inout ContextValues) -> Void
        var use: @Sendable (Context) -> Void = { _ in }
    }

    /// `count` registrations of distinct types: every registration form in turn; only synchronous
    /// ones when `synchronousOnly` (what `validate()` checks without `prepare()`); scoped objects that
    /// adopt `ScopeShutdown`, each with its resolve, when `closing`.
    static func make(_ count: Int, synchronousOnly: Bool = false, closing: Bool = false) -> [Registration] {
        var all: [Registration] = []
        all.reserveCapacity(count)
        var bits = 1
        while 1 << bits < count { bits += 1 }
        collect(Leaf.self, depth: bits, into: &all, count: count, synchronousOnly: synchronousOnly, closing: closing)
        return all
    }

    private static func collect<T>(
        _ type: T.Type,
        depth: Int,
        into all: inout [Registration],
        count: Int,
        synchronousOnly: Bool,
        closing: Bool
    ) {
        if all.count >= count { return }
        if depth > 0 {
            collect(
                Zero<T>.self,
                depth: depth - 1,
                into: &all,
                count: count,
                synchronousOnly: synchronousOnly,
                closing: closing
            )
            collect(
                One<T>.self,
                depth: depth - 1,
                into: &all,
                count: count,
                synchronousOnly: synchronousOnly,
                closing: closing
            )
            return
        }
        if closing {
            all.append(
                Registration(
                    register: { $0.provide(Closing<T>.self, lifetime: .scoped) { _ in Closing<T>() } },
                    use: { consume($0.resolve(Closing<T>.self)) }
                )
            )
            return
        }
        switch all.count % 9 {
        case 0: all.append(Registration { $0.provide(Made<T>.self, lifetime: .singleton) { _ in Made<T>() } })
        case 1: all.append(Registration { $0.provide(Made<T>.self, lifetime: .scoped) { _ in Made<T>() } })
        case 2: all.append(Registration { $0.provide(Made<T>.self, lifetime: .transient) { _ in Made<T>() } })
        case 3 where synchronousOnly:
            all.append(Registration { $0.provide(Made<T>.self, lifetime: .singleton) { _ in Made<T>() } })
        case 3: all.append(Registration { $0.provide(Made<T>.self, lifetime: .singleton) { _ async in Made<T>() } })
        case 4:
            all.append(
                Registration {
                    $0.provide(Made<T>.self, lifetime: .singleton) { _ in Made<T>() }
                    $0.forward(Forwarded<T>.self, to: Made<T>.self)
                }
            )
        case 5:
            all.append(Registration { $0.provideFactory(Made<T>.self) { (_: Context, name: String) in Made<T>(name) } })
        case 6: all.append(Registration { $0.provide(Made<T>()) })
        case 7: all.append(Registration { $0[Key<T>.self] = 1 })
        default: all.append(Registration { $0.addProvider(Leaf.self, lifetime: .transient) { _ in Leaf() } })
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

/// A scoped object with a shutdown, which its scope's shutdown calls.
private final class Closing<T>: ScopeShutdown {
    func shutdown() async throws {}
}

/// A type a provider is forwarded to (never resolved here: only registered).
private enum Forwarded<T>: Sendable {}

private enum Key<T>: ContextKey {
    static var defaultValue: Int { 0 }
}
