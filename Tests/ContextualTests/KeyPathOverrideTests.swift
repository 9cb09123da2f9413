import Dispatch
import Testing

@testable import Contextual

// MARK: - Keys whose reads have effects

/// Counts the computations of the default of `UncomputedDefaultKey`: it is read by no other test.
private let uncomputedDefaults = Counter()

private enum UncomputedDefaultKey: ContextKey {
    static var defaultValue: String {
        uncomputedDefaults.increment()
        return "live"
    }
}

private enum LevelKey: ContextKey {
    static var defaultValue: Int { 0 }
}

private struct Limits: Sendable, Equatable {
    var timeout = 30
    var retries = 3
}

private enum LimitsKey: ContextKey {
    static var defaultValue: Limits { Limits() }
}

/// Larger than the 64 bytes a thread keeps for a value being assigned: it is copied to memory of its own.
private struct Large: Sendable, Equatable {
    var words = (0, 0, 0, 0, 0, 0, 0, 0, 0)

    static func == (lhs: Large, rhs: Large) -> Bool {
        withUnsafeBytes(of: lhs.words) { left in withUnsafeBytes(of: rhs.words) { left.elementsEqual($0) } }
    }
}

private enum LargeKey: ContextKey {
    static var defaultValue: Large { Large() }
}

/// A default that overrides a value through a key path while it is computed.
private enum NestedDefaultKey: ContextKey {
    static var defaultValue: Limits { Limits(timeout: Context.root.child(\.level, 7)[\.level], retries: 1) }
}

private enum SchemeKey: ContextKey {
    static var defaultValue: String { "https" }
}

private enum HostKey: ContextKey {
    static var defaultValue: String { "example.com" }
}

private struct Endpoint: Sendable, Equatable {
    var scheme: String
    var host: String
}

/// A default that reads another key of the same type through the current context.
private enum ConnectionKey: ContextKey {
    static var defaultValue: Endpoint { Endpoint(scheme: "tcp", host: Context.current[HostKey.self]) }
}

private enum LowerKey: ContextKey {
    static var defaultValue: Int { 5 }
}

private struct Window: Sendable {
    var lower: Int
    var upper: Int
}

private enum MirrorKey: ContextKey {
    static var defaultValue: Int { 0 }
}

private enum OffsetKey: ContextKey {
    static var defaultValue: Int { 40 }
}

extension ContextValues {
    /// One property over two keys of the same type.
    fileprivate var endpoint: Endpoint {
        get { Endpoint(scheme: self[SchemeKey.self], host: self[HostKey.self]) }
        set {
            self[SchemeKey.self] = newValue.scheme
            self[HostKey.self] = newValue.host
        }
    }

    fileprivate var connection: Endpoint {
        get { self[ConnectionKey.self] }
        set { self[ConnectionKey.self] = newValue }
    }

    /// A value made from one key, whose setter writes that key back from one of its parts.
    fileprivate var window: Window {
        get { Window(lower: self[LowerKey.self], upper: self[LowerKey.self] + 10) }
        set { self[LowerKey.self] = newValue.lower }
    }

    /// A property whose setter writes nothing.
    fileprivate var ignoredLevel: Int {
        get { self[LevelKey.self] }
        set {}
    }

    /// A getter that reads another key first, whose default reads the current context.
    fileprivate var scheme: String {
        get {
            _ = self[ConnectionKey.self]
            return self[SchemeKey.self]
        }
        set { self[SchemeKey.self] = newValue }
    }

    /// A setter that reads another key of its type before it writes.
    fileprivate var shifted: Int {
        get { self[MirrorKey.self] }
        set { self[MirrorKey.self] = newValue + self[OffsetKey.self] }
    }

    fileprivate var large: Large {
        get { self[LargeKey.self] }
        set { self[LargeKey.self] = newValue }
    }

    fileprivate var nestedDefault: Limits {
        get { self[NestedDefaultKey.self] }
        set { self[NestedDefaultKey.self] = newValue }
    }

    fileprivate var uncomputedDefault: String {
        get { self[UncomputedDefaultKey.self] }
        set { self[UncomputedDefaultKey.self] = newValue }
    }

    fileprivate var level: Int {
        get { self[LevelKey.self] }
        set { self[LevelKey.self] = newValue }
    }

    fileprivate var limits: Limits {
        get { self[LimitsKey.self] }
        set { self[LimitsKey.self] = newValue }
    }

    /// A property of another type than its key's: its getter converts.
    fileprivate var isVerbose: Bool {
        get { self[LevelKey.self] > 0 }
        set { self[LevelKey.self] = newValue ? 1 : 0 }
    }
}

/// `child(\.key, value)` overrides a value without reading the one it replaces, as a closure that sets it
/// does: a key path assignment through a computed property reads the old value first (its getter runs
/// before its setter), which would compute a default or build a provider's object for nothing, or stop
/// the process where that object cannot be built.
@Suite("Overriding a value through a key path")
struct KeyPathOverrideTests {
    @Test("child(\\.key, value) over a scoped provider registered outside any scope builds nothing")
    func overScopedProviderWithoutScope() {
        let built = Counter()
        let app = Context(name: "app") {
            $0.provide(\.level, lifetime: .scoped) { _ in
                built.increment()
                return 1
            }
        }
        // Before: the old value was read from the app, which has no scope: the process stopped.
        let child = app.child(\.level, 100, name: "override")
        #expect(child[\.level] == 100)
        #expect(built.count == 0)
    }

    @Test("child(\\.key, value) runs neither a transient factory nor a singleton's that throws")
    func overFactories() {
        struct Failure: Error {}
        let transients = Counter()
        let transient = Context(name: "app") {
            $0.provide(\.level, lifetime: .transient) { _ in
                transients.increment()
                return 1
            }
        }
        #expect(transient.child(\.level, 5)[\.level] == 5)
        #expect(transients.count == 0)

        let failing = Context(name: "app") {
            $0.provide(\.level, lifetime: .singleton) { _ -> Int in throw Failure() }
        }
        #expect(failing.child(\.level, 7)[\.level] == 7)
    }

    @Test("child(\\.key, value) does not compute the default of the key it overrides")
    func defaultNotComputed() {
        let child = Context(name: "app").child(\.uncomputedDefault, "fake")
        #expect(child[\.uncomputedDefault] == "fake")
        #expect(uncomputedDefaults.count == 0)
    }

    @Test("A key path into a value changes that part of the inherited value")
    func nestedKeyPathReadsWhatItChanges() {
        let app = Context(name: "app") { $0.limits = Limits(timeout: 10, retries: 9) }
        let child = app.child(\.limits.timeout, 5)
        #expect(child[\.limits] == Limits(timeout: 5, retries: 9))
        #expect(app[\.limits] == Limits(timeout: 10, retries: 9))
    }

    @Test("A property that converts its key's value is set through its setter")
    func convertingProperty() {
        let app = Context(name: "app") { $0.level = 3 }
        #expect(app.child(\.isVerbose, false)[\.level] == 0)
        #expect(app.child(\.isVerbose, true)[\.level] == 1)
        #expect(app[\.level] == 3)
    }

    @Test("In a test context, child(\\.key, value) overrides without reading the key's test value")
    func inTestContext() {
        let built = Counter()
        let test = Context.testing(name: "test") {
            $0.provide(\.level, lifetime: .scoped) { _ in
                built.increment()
                return 1
            }
        }
        #expect(test.child(\.level, 4)[\.level] == 4)
        #expect(built.count == 0)
        // The test context's own reads are unchanged: its provider builds in a scope.
        #expect(test.scope(name: "request")[\.level] == 1)
        #expect(built.count == 1)
    }

    @Test("A value too large for the thread's buffer is overridden without building either")
    func largeValue() {
        let built = Counter()
        let app = Context(name: "app") {
            $0.provide(\.large, lifetime: .transient) { _ in
                built.increment()
                return Large()
            }
        }
        var large = Large()
        large.words.8 = 42
        #expect(app.child(\.large, large)[\.large] == large)
        #expect(built.count == 0)
    }

    @Test("An override through a key path made while another one reads what it changes part of")
    func nestedAssignments() {
        // The outer assignment reads the default of `nestedDefault`, whose computation overrides `level`
        // through a key path: each assignment reads its own pending value, and the outer one its own again.
        let child = Context(name: "app").child(\.nestedDefault.retries, 4)
        #expect(child[\.nestedDefault] == Limits(timeout: 7, retries: 4))
        #expect(child.child(\.level, 2)[\.level] == 2)
    }

    @Test("Overrides through key paths on many threads at once each keep their own value")
    func concurrentOverrides() {
        let built = Counter()
        let app = Context(name: "app") {
            $0.provide(\.level, lifetime: .scoped) { _ in
                built.increment()
                return -1
            }
        }
        let mismatches = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<200 {
                let value = thread * 1_000 + index
                if app.child(\.level, value)[\.level] != value { mismatches.increment() }
            }
        }
        #expect(mismatches.count == 0)
        #expect(built.count == 0)
    }

    @Test("A path into a value over two keys of one type changes only its part")
    func pathOverKeysOfOneType() {
        let child = Context(name: "app").child(\.endpoint.host, "api.internal")
        #expect(child[\.endpoint] == Endpoint(scheme: "https", host: "api.internal"))
    }

    @Test("A path into a value made from one key reads that key: the part it sets is not the key's value")
    func pathIntoAValueMadeFromOneKey() {
        // `upper` is set and dropped by the setter, which writes `lower` back unchanged: lending 50 to the
        // getter's read of `LowerKey` would make it 50.
        #expect(Context(name: "app").child(\.window.upper, 50)[LowerKey.self] == 5)
    }

    @Test("A default computed meanwhile reads its own values, not the value being assigned")
    func defaultsReadTheirOwnValues() {
        let test = Context.testing(name: "test")
        test.run {
            let child = Context.current.child(\.connection.scheme, "udp")
            #expect(child[\.connection] == Endpoint(scheme: "udp", host: "example.com"))
            #expect(Context.current[\.connection] == Endpoint(scheme: "tcp", host: "example.com"))
        }
    }

    @Test("A default computed during an assignment's read is not given the value being assigned")
    func defaultDuringTheReadIsNotGivenTheValue() {
        let test = Context.testing(name: "test")
        test.run {
            // The getter reads `ConnectionKey` first: its default, computed now, reads `HostKey` (a String,
            // as the value assigned) from the current context, which is not the values being assigned.
            let child = Context.current.child(\.scheme, "udp")
            #expect(child[SchemeKey.self] == "udp")
            #expect(Context.current[\.connection] == Endpoint(scheme: "tcp", host: "example.com"))
        }
    }

    @Test("A setter that reads another key of its type reads that key's own value")
    func setterReadsItsOwnValues() {
        // The getter reads `MirrorKey` from a value set above, so nothing is lent to it; the setter's read
        // of `OffsetKey` must not get the value being assigned either.
        let app = Context(name: "app") { $0[MirrorKey.self] = 1 }
        #expect(app.child(\.shifted, 2)[MirrorKey.self] == 42)
        #expect(Context(name: "unset").child(\.shifted, 2)[MirrorKey.self] == 42)
    }

    @Test("A value assigned through a key path is only lent to the read of the old one")
    func pendingValueIsTakenOnce() {
        var values = ContextValues(own: .empty, inherited: .empty, origin: nil)
        values.assign(2, at: \.level)
        #expect(values[LevelKey.self] == 2)
        // The assignment's mark is gone from the values it wrote.
        #expect(!values.own.isAssigning)
        // An assignment whose getter reads a value set and whose setter writes nothing lends nothing, and
        // leaves nothing pending: even values marked as being assigned then read an unset key of the same
        // type as its default.
        values.assign(7, at: \.ignoredLevel)
        #expect(values[LevelKey.self] == 2)
        #expect(!values.own.isAssigning)
        let marked = ContextValues(own: FrozenTable.empty.marked(asAssigning: true), inherited: .empty, origin: nil)
        #expect(marked[LevelKey.self] == 0)
    }
}

/// A key path's shape, read from its description: one property of the values, or a longer path.
@Suite("Key path shapes")
struct KeyPathShapeTests {
    @Test("One property is told from a path into a value, optional chaining and force unwrapping")
    func descriptions() {
        let root = "\\ContextValues"
        #expect(KeyPathShape.isSingleProperty(description: "\\ContextValues.level", root: root))
        #expect(KeyPathShape.isSingleProperty(description: "\\ContextValues.<computed 0x1 (Swift.Int)>", root: root))
        #expect(KeyPathShape.isSingleProperty(description: "\\ContextValues.<computed 0x1 (() -> ())>", root: root))
        #expect(
            !KeyPathShape.isSingleProperty(description: "\\ContextValues.<computed 0x1 (Limits)>.timeout", root: root)
        )
        #expect(!KeyPathShape.isSingleProperty(description: "\\ContextValues.limits.timeout", root: root))
        #expect(
            !KeyPathShape.isSingleProperty(
                description: "\\ContextValues.<computed 0x1 (Optional<Limits>)>?.timeout?",
                root: root
            )
        )
        #expect(
            !KeyPathShape.isSingleProperty(
                description: "\\ContextValues.<computed 0x1 (Optional<Limits>)>!",
                root: root
            )
        )
        #expect(!KeyPathShape.isSingleProperty(description: "\\Other.level", root: root))
    }

    @Test("This toolchain's descriptions are read as the parser expects")
    func probesReadCorrectly() {
        // If this fails, the toolchain changed the format of key path descriptions: assignments through a
        // key path stay correct (they read the value they replace), but read defaults they could skip.
        #expect(KeyPathShape.descriptionsAreUnderstood)
        #expect(KeyPathShape.probesAreReadCorrectly(by: KeyPathShape.isSingleProperty(description:root:)))
    }

    @Test(
        "A parser that misreads any probe is not trusted",
        arguments: [
            "counts every path as one property", "counts nothing as one property", "ignores optional chaining",
        ]
    )
    func misreadingParsersAreRejected(_ misreading: String) {
        let parser: (String, String) -> Bool
        switch misreading {
        case "counts every path as one property": parser = { description, root in description.hasPrefix(root) }
        case "counts nothing as one property": parser = { _, _ in false }
        default:
            parser = { description, root in
                KeyPathShape.isSingleProperty(
                    description: description.replacing("?", with: "").replacing("!", with: ""),
                    root: root
                )
            }
        }
        #expect(!KeyPathShape.probesAreReadCorrectly(by: parser))
    }

    @Test("Descriptions not trusted: no key path is one property, so an assignment reads what it replaces")
    func untrustedDescriptions() {
        #expect(KeyPathShape.isSingleProperty(\ContextValues.level, trustingDescriptions: true))
        #expect(!KeyPathShape.isSingleProperty(\ContextValues.level, trustingDescriptions: false))
        #expect(!KeyPathShape.isSingleProperty(\ContextValues.limits.timeout, trustingDescriptions: false))
    }

    @Test("The shapes of real key paths, learned once")
    func realKeyPaths() {
        #expect(KeyPathShape.isSingleProperty(\ContextValues.level))
        #expect(!KeyPathShape.isSingleProperty(\ContextValues.limits.timeout))
        #expect(!KeyPathShape.isSingleProperty(\ContextValues.endpoint.host))
        #expect(KeyPathShape.isSingleProperty(\ContextValues.level))
    }
}
