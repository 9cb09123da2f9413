import Contextual
import Testing

// The ```swift blocks of Articles/ComingFromSwiftUI.md, verbatim, and what their prose and comments
// claim. The key `config` comes from GettingStartedTests.swift.

// MARK: - Container values are never inherited

enum ModuleTitleKey: ContainerValueKey {
    static var defaultValue: String { "untitled" }
}

extension ContainerValues {
    var moduleTitle: String {
        get { self[ModuleTitleKey.self] }
        set { self[ModuleTitleKey.self] = newValue }
    }
}

// MARK: - Reducing with the default must change nothing

/// Breaks the law: `min(0, x)` is 0, so every member's timeout is lost.
enum BrokenFastestTimeoutKey: PreferenceKey {
    static var defaultValue: Int { 0 }
    static func reduce(value: inout Int, nextValue: () -> Int) { value = min(value, nextValue()) }
}

/// Keeps it: `nil` means "no timeout set", and reducing with it changes nothing.
enum FastestTimeoutKey: PreferenceKey {
    static var defaultValue: Int? { nil }
    static func reduce(value: inout Int?, nextValue: () -> Int?) {
        guard let next = nextValue() else { return }
        value = min(value ?? next, next)
    }
}

extension PreferenceValues {
    var brokenFastestTimeout: Int {
        get { self[BrokenFastestTimeoutKey.self] }
        set { self[BrokenFastestTimeoutKey.self] = newValue }
    }

    var fastestTimeout: Int? {
        get { self[FastestTimeoutKey.self] }
        set { self[FastestTimeoutKey.self] = newValue }
    }
}

@Suite("Coming from SwiftUI")
struct ComingFromSwiftUITests {
    @Test("child(transforming:) follows what flows from above; a plain override shields its subtree")
    func transformFollowsAbove() {
        let app = Context(name: "app") { $0.config.databaseURL = "postgres://primary/app" }
        let reports = app.child(transforming: \.config, name: "reports") { $0.verbose = true }
        app.update { $0.config.databaseURL = "postgres://failover/app" }

        let appURL = app[\.config].databaseURL  // "postgres://failover/app"
        let reportsURL = reports[\.config].databaseURL  // "postgres://failover/app": transformed again
        let reportsVerbose = reports[\.config].verbose  // true; the app's stays false

        #expect(appURL == "postgres://failover/app")
        #expect(reportsURL == "postgres://failover/app")
        #expect(reportsVerbose)
        // Observers below the transform are called with the new transformed value.
        let seen = Lines()
        let below = reports.child(name: "below")
        let token = below.observe(\.config) { seen.append($0.databaseURL) }
        app.update { $0.config.databaseURL = "postgres://third/app" }
        #expect(seen.all == ["postgres://third/app"])
        #expect(below[\.config].verbose)
        // A plain override shields its subtree.
        let pinned = app.child(\.config, Config(databaseURL: "postgres://pinned/app", verbose: false))
        app.update { $0.config.databaseURL = "postgres://fourth/app" }
        #expect(pinned[\.config].databaseURL == "postgres://pinned/app")
        // The sibling and the parent never see the override.
        #expect(app[\.config].verbose == false)
        #expect(app.child(name: "sibling")[\.config].verbose == false)
        token.cancel()
    }

    @Test("A host reads container values of its direct members only; children do not inherit them")
    func containerValuesNotInherited() {
        let shell = Context(name: "shell")
        let billing = shell.member(name: "billing") { $0.containerValues.moduleTitle = "Billing" }
        let invoices = billing.member(name: "invoices")  // inherits billing's values, not its container values
        let titles = shell.members.map(\.containerValues.moduleTitle)  // ["Billing"]: direct members only
        let nested = billing.members.map(\.containerValues.moduleTitle)  // ["untitled"]: not inherited

        #expect(titles == ["Billing"])
        #expect(nested == ["untitled"])
        var inClosure = ""
        _ = billing.member(name: "probe") { inClosure = $0.containerValues.moduleTitle }
        #expect(inClosure == "untitled")
        // A plain child is not a member.
        let plain = shell.child(name: "plain")
        #expect(plain.isMember == false)
        #expect(shell.members.count == 1)
        withExtendedLifetime(invoices) {}
    }

    @Test("A default that is not neutral wins over every contribution; a neutral one keeps them")
    func reduceLaw() {
        let proxy = Context(name: "proxy")
        let upstreams = [30, 5, 12].map { seconds in
            proxy.member(name: "upstream \(seconds)s") {
                $0.preferences.brokenFastestTimeout = seconds
                $0.preferences.fastestTimeout = seconds
            }
        }
        let broken = proxy.preference(\.brokenFastestTimeout)  // 0: the default won
        let fastest = proxy.preference(\.fastestTimeout)  // 5

        #expect(broken == 0)
        #expect(fastest == 5)
        #expect(upstreams.count == 3)
        // The law, checked on the neutral key.
        for x in [nil, 3] as [Int?] {
            var left = FastestTimeoutKey.defaultValue
            FastestTimeoutKey.reduce(value: &left) { x }
            var right = x
            FastestTimeoutKey.reduce(value: &right) { FastestTimeoutKey.defaultValue }
            #expect(left == x)
            #expect(right == x)
        }
        withExtendedLifetime(upstreams) {}
    }

    @Test("setPreference, setContainerValue and contribute change the context in place")
    func objectsNotViewValues() {
        let host = Context(name: "host")
        let module = host.member(name: "module")
        module.setContainerValue(\.moduleTitle, "Module")
        module.setPreference(\.fastestTimeout, 7)
        #expect(host.members.first?.containerValues.moduleTitle == "Module")
        #expect(host.preference(\.fastestTimeout) == 7)
        #expect(host.members.first?.context === module)
    }
}
