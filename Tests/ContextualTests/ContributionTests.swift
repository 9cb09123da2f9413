import Contextual
import Testing

@Suite("Contributions")
struct ContributionTests {
    @Test("Array contributions from many contexts read as one array, in subtree order")
    func arrays() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing")
        billing.contribute(\.routes, "/invoices", "/refunds")
        let auth = host.member(name: "auth") { $0.preferences.routes.append("/login") }
        billing.contribute(\.routes, "/receipts")
        #expect(host.preference(\.routes) == ["/invoices", "/refunds", "/receipts", "/login"])
        withExtendedLifetime(auth) {}
    }

    @Test("Set contributions merge duplicates")
    func sets() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing")
        billing.contribute(\.oauthScopes, "read")
        let auth = host.member(name: "auth")
        auth.contribute(\.oauthScopes, "read")
        auth.contribute(\.oauthScopes, "admin")
        #expect(host.preference(\.oauthScopes) == ["read", "admin"])
        withExtendedLifetime((billing, auth)) {}
    }

    @Test("Dictionary contributions read as one dictionary, each entry attributed to its contributor")
    func dictionaries() throws {
        let host = Context(name: "host")
        let billing = host.member(name: "billing")
        billing.contribute(\.healthChecks, key: "ledger", "ledger ok")
        let auth = host.member(name: "auth") { $0.preferences.healthChecks = ["sessions": "sessions ok"] }
        let checks = try host.contributions(\.healthChecks)
        #expect(checks == ["ledger": "ledger ok", "sessions": "sessions ok"])
        let entries = host.preference(\.healthChecks).entries
        #expect(entries.map(\.key) == ["ledger", "sessions"])
        #expect(entries.map(\.contributor) == ["host → billing", "host → auth"])
        withExtendedLifetime((billing, auth)) {}
    }

    @Test("A key contributed by two contexts is an error that names the key, the preference and both")
    func duplicateAcrossContexts() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing")
        billing.contribute(\.healthChecks, key: "database", "billing's")
        let auth = host.member(name: "auth")
        auth.contribute(\.healthChecks, key: "database", "auth's")
        let error = #expect(throws: ContextError.self) { try host.contributions(\.healthChecks) }
        #expect(error?.code == .duplicateContribution)
        #expect(error?.message.contains("HealthChecksKey") == true)
        #expect(error?.message.contains(#"the key "database""#) == true)
        #expect(error?.message.contains("from 'host → billing' and from 'host → auth'") == true)
        #expect(error?.message.contains("Fix:") == true)
        #expect(error?.searchedContexts == ["host → billing", "host → auth"])
        // Nothing is lost: both contributions are still there to inspect.
        #expect(host.preference(\.healthChecks).entries.map(\.value) == ["billing's", "auth's"])
        withExtendedLifetime((billing, auth)) {}
    }

    @Test("A key contributed twice by one context is reported too, naming that context")
    func duplicateWithinContext() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing")
        billing.contribute(\.healthChecks, key: "ledger", "first")
        billing.contribute(\.healthChecks, key: "ledger", "second")
        let error = #expect(throws: ContextError.self) { try host.contributions(\.healthChecks) }
        #expect(error?.message.contains("both from 'host → billing'") == true)
        withExtendedLifetime(billing) {}
    }

    @Test("A duplicate read from a context's own values names them, as nothing attributed them yet")
    func duplicateUnattributed() {
        var contributions: Contributions<String, Int> = ["a": 1]
        contributions.add(2, for: "a")
        let error = #expect(throws: ContextError.self) { try contributions.dictionary() }
        #expect(error?.message.contains("both from this context's own values") == true)
    }
}
