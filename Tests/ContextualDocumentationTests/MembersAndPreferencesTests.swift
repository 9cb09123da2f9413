import Contextual
import Synchronization
import Testing

// The ```swift blocks of Articles/MembersAndPreferences.md, verbatim, and what their prose, comments and
// rules claim.

// MARK: - Container values

enum MyCustomValueKey: ContainerValueKey {
    static var defaultValue: String { "Default value" }
}

extension ContainerValues {
    var myCustomValue: String {
        get { self[MyCustomValueKey.self] }
        set { self[MyCustomValueKey.self] = newValue }
    }
}

struct MyContainer {
    let context = Context(name: "host")

    func lines() -> [String] {
        context.members.map { member in "\(member.name ?? "?"): \(member.containerValues.myCustomValue)" }
    }
}

// MARK: - Contributions

enum RoutesKey: ArrayContributionKey {
    typealias Element = String
}

enum HealthChecksKey: DictionaryContributionKey {
    typealias EntryKey = String
    typealias EntryValue = HealthCheck
}

struct HealthCheck: Sendable {
    let check: @Sendable () -> Bool
}

/// Where the server installs its routes: a stand-in for a real router.
final class RouteTable: Sendable {
    private let current = Mutex<[String]>([])
    func install(_ routes: [String]) { current.withLock { $0 = routes } }
    var routes: [String] { current.withLock { $0 } }
}

extension PreferenceValues {
    var routes: [String] {
        get { self[RoutesKey.self] }
        set { self[RoutesKey.self] = newValue }
    }

    var healthChecks: Contributions<String, HealthCheck> {
        get { self[HealthChecksKey.self] }
        set { self[HealthChecksKey.self] = newValue }
    }
}

// MARK: - The other built-in keys

enum OAuthScopesKey: SetContributionKey {
    typealias Element = String
}

enum PoolSizeKey: SumPreferenceKey {
    typealias Value = Int
}

enum HomePageKey: FirstValuePreferenceKey {
    typealias Wrapped = String
}

enum LogLevelOverrideKey: LastValuePreferenceKey {
    typealias Wrapped = String
}

extension PreferenceValues {
    var oauthScopes: Set<String> {
        get { self[OAuthScopesKey.self] }
        set { self[OAuthScopesKey.self] = newValue }
    }

    var poolSize: Int {
        get { self[PoolSizeKey.self] }
        set { self[PoolSizeKey.self] = newValue }
    }

    var homePage: String? {
        get { self[HomePageKey.self] }
        set { self[HomePageKey.self] = newValue }
    }

    var logLevelOverride: String? {
        get { self[LogLevelOverrideKey.self] }
        set { self[LogLevelOverrideKey.self] = newValue }
    }
}

@Suite("Members, container values, preferences and contributions")
struct MembersAndPreferencesTests {
    @Test("MyContainer lists its direct members with each one's custom value")
    func myContainer() {
        let container = MyContainer()
        let billing = container.context.member(name: "billing")
        billing.setContainerValue(\.myCustomValue, "Invoices and refunds")
        let auth = container.context.member(name: "auth") { $0.containerValues.myCustomValue = "Sign-in" }
        let metrics = container.context.member(name: "metrics")  // sets nothing: reads the default
        let refunds = billing.member(name: "refunds") { $0.containerValues.myCustomValue = "Refunds" }  // billing's

        let listing = container.lines()  // ["billing: Invoices and refunds", "auth: Sign-in", "metrics: Default value"]

        #expect(listing == ["billing: Invoices and refunds", "auth: Sign-in", "metrics: Default value"])
        #expect(billing.members.map(\.containerValues.myCustomValue) == ["Refunds"])
        #expect(refunds.parent === billing)
        withExtendedLifetime((auth, metrics, refunds)) {}
    }

    @Test("Modules contribute routes and health checks; the observer sees them; a duplicate key is reported")
    func contributions() throws {
        let printed = Lines()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let server = Context(name: "server")
        let installed = RouteTable()
        let token = server.observePreference(\.routes) { routes in installed.install(routes) }

        let invoices = server.member(name: "invoices") { $0.preferences.routes = ["/invoices"] }
        invoices.contribute(\.healthChecks, key: "ledger", HealthCheck { true })
        let accounts = server.member(name: "accounts", ownership: .owned)
        accounts.contribute(\.routes, "/login", "/logout")
        accounts.contribute(\.healthChecks, key: "sessions", HealthCheck { true })

        let routes = server.preference(\.routes)  // ["/invoices", "/login", "/logout"]
        let checks = try server.contributions(\.healthChecks)  // ["ledger": …, "sessions": …]
        let seen = installed.routes  // the same: the observer saw each module arrive

        accounts.contribute(\.healthChecks, key: "ledger", HealthCheck { false })
        do {
            _ = try server.contributions(\.healthChecks)
        } catch {
            print(error)  // .duplicateContribution: the key "ledger", from 'server → invoices' and 'server → accounts'
        }

        #expect(routes == ["/invoices", "/login", "/logout"])
        #expect(checks.keys.sorted() == ["ledger", "sessions"])
        #expect(checks.values.allSatisfy { $0.check() })
        #expect(seen == routes)
        #expect(printed.all.count == 1)
        let message = printed.all.first ?? ""
        #expect(message.contains("\"ledger\""))
        #expect(message.contains("from 'server → invoices' and from 'server → accounts'"))
        let error = #expect(throws: ContextError.self) { try server.contributions(\.healthChecks) }
        #expect(error?.code == .duplicateContribution)
        #expect(error?.message.contains("HealthChecksKey") == true)
        let contributors = server.preference(\.healthChecks).entries.map(\.contributor)
        #expect(contributors == ["server → invoices", "server → accounts", "server → accounts"])
        withExtendedLifetime(invoices) {}
        token.cancel()
    }

    @Test("Sets merge, sums add up, the first value and the last value win in subtree order")
    func builtInKeys() {
        let empty = Context(name: "empty")
        #expect(empty.preference(\.oauthScopes).isEmpty)
        #expect(empty.preference(\.poolSize) == 0)
        #expect(empty.preference(\.homePage) == nil)
        #expect(empty.preference(\.logLevelOverride) == nil)

        let gateway = Context(name: "gateway")
        let search = gateway.member(name: "search", ownership: .owned) {
            $0.preferences.poolSize = 4
            $0.preferences.homePage = "/search"
            $0.preferences.logLevelOverride = "info"
        }
        let orders = gateway.member(name: "orders", ownership: .owned) {
            $0.preferences.poolSize = 2
            $0.preferences.homePage = "/orders"
        }
        search.contribute(\.oauthScopes, "catalog:read")
        orders.contribute(\.oauthScopes, "catalog:read")
        orders.setPreference(\.logLevelOverride, "trace")

        let scopes = gateway.preference(\.oauthScopes)  // ["catalog:read"]: merged
        let poolSize = gateway.preference(\.poolSize)  // 6
        let homePage = gateway.preference(\.homePage)  // "/search": the first set, in registration order
        let logLevel = gateway.preference(\.logLevelOverride)  // "trace": the last set

        #expect(scopes == ["catalog:read"])
        #expect(poolSize == 6)
        #expect(homePage == "/search")
        #expect(logLevel == "trace")
    }

    @Test("A member added with addMember is listed while it runs and leaves the list when it ends")
    func membersComeAndGo() async throws {
        let api = Context(name: "api")
        let call = api.scope(name: "call 1")
        try api.addMember(call)  // listed while it runs
        let during = api.members.map(\.name)  // ["call 1"]
        try await call.shutdown()
        let after = api.members.map(\.name)  // []: a member leaves the list when it ends

        #expect(during == ["call 1"])
        #expect(after.isEmpty)
        #expect(call.isMember == false)
    }

    @Test("addMember refuses a grandchild, a second registration and an ended scope")
    func addMemberRefusals() async throws {
        let host = Context(name: "host")
        let child = host.child(name: "child")
        let grandchild = child.child(name: "grandchild")
        let notDirect = #expect(throws: ContextError.self) { try host.addMember(grandchild) }
        #expect(notDirect?.code == .notADirectChild)
        try host.addMember(child)
        let twice = #expect(throws: ContextError.self) { try host.addMember(child) }
        #expect(twice?.code == .alreadyAMember)
        let ended = host.scope(name: "ended")
        try await ended.shutdown()
        let endedError = #expect(throws: ContextError.self) { try host.addMember(ended) }
        #expect(endedError?.code == .scopeEnded)
    }

    @Test("A weak member leaves when released; removeMember releases an owned one")
    func memberLifetimes() {
        let host = Context(name: "host")
        var weakMember: Context? = host.member(name: "weak")
        #expect(host.members.count == 1)
        weakMember = nil
        #expect(host.members.isEmpty)
        _ = weakMember

        weak var released: Context?
        do {
            let owned = host.member(name: "owned", ownership: .owned)
            released = owned
        }
        #expect(host.members.map(\.ownership) == [.owned])
        #expect(released != nil)
        if let owned = released { #expect(host.removeMember(owned)) }
        #expect(released == nil)
        #expect(host.members.isEmpty)
    }

    @Test("Container values and preferences are not inherited; non-members take no part; depth first")
    func notInherited() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing", ownership: .owned) {
            $0.containerValues.myCustomValue = "Billing"
            $0.preferences.routes = ["/billing"]
        }
        var seenInClosure = ""
        let ledger = billing.member(name: "ledger", ownership: .owned) {
            seenInClosure = $0.containerValues.myCustomValue
            $0.preferences.routes = ["/ledger"]
        }
        _ = billing.child(name: "not a member") { $0.preferences.routes = ["/hidden"] }
        let auth = host.member(name: "auth", ownership: .owned) { $0.preferences.routes = ["/auth"] }
        host.setPreference(\.routes, ["/host"])

        #expect(seenInClosure == "Default value")
        #expect(billing.members.map(\.containerValues.myCustomValue) == ["Default value"])
        #expect(host.preference(\.routes) == ["/host", "/billing", "/ledger", "/auth"])
        #expect(ledger.preference(\.routes) == ["/ledger"])
        withExtendedLifetime(auth) {}
    }

    @Test("The built-in keys keep the law: reducing with the default changes nothing")
    func reduceIdentity() {
        func reduced<Key: PreferenceKey>(_ key: Key.Type, _ first: Key.Value, _ second: Key.Value) -> Key.Value {
            var value = first
            Key.reduce(value: &value) { second }
            return value
        }
        #expect(reduced(RoutesKey.self, [], ["/a"]) == ["/a"])
        #expect(reduced(RoutesKey.self, ["/a"], []) == ["/a"])
        #expect(reduced(OAuthScopesKey.self, [], ["s"]) == ["s"])
        #expect(reduced(OAuthScopesKey.self, ["s"], []) == ["s"])
        #expect(reduced(PoolSizeKey.self, 0, 3) == 3)
        #expect(reduced(PoolSizeKey.self, 3, 0) == 3)
        #expect(reduced(HomePageKey.self, nil, "/a") == "/a")
        #expect(reduced(HomePageKey.self, "/a", nil) == "/a")
        #expect(reduced(LogLevelOverrideKey.self, nil, "info") == "info")
        #expect(reduced(LogLevelOverrideKey.self, "info", nil) == "info")
        #expect(reduced(HealthChecksKey.self, [:], ["a": HealthCheck { true }]).entries.map(\.key) == ["a"])
        #expect(reduced(HealthChecksKey.self, ["a": HealthCheck { true }], [:]).entries.map(\.key) == ["a"])
    }

    @Test("The wiring description lists container values, preferences and members, owned ones marked")
    func diagnostics() {
        let host = Context(name: "host")
        let module = host.member(name: "module", ownership: .owned) {
            $0.containerValues.myCustomValue = "Module"
            $0.preferences.routes = ["/module"]
        }
        let text = module.wiringDescription
        #expect(text.contains("container value MyCustomValueKey"))
        #expect(text.contains("preference RoutesKey"))
        #expect(text.contains("members: 'module' (owned)"))
    }
}
