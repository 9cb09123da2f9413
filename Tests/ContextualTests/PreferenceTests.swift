import Contextual
import Testing

@Suite("Preferences")
struct PreferenceTests {
    @Test("A preference reduces over the subtree: the context itself, then members in order, depth first")
    func subtreeOrder() {
        let host = Context(name: "host") { $0.preferences.routes = ["/"] }
        let billing = host.member(name: "billing") { $0.preferences.routes = ["/invoices"] }
        let refunds = billing.member(name: "refunds") { $0.preferences.routes = ["/refunds"] }
        let auth = host.member(name: "auth") { $0.preferences.routes = ["/login", "/logout"] }
        #expect(host.preference(\.routes) == ["/", "/invoices", "/refunds", "/login", "/logout"])
        #expect(billing.preference(\.routes) == ["/invoices", "/refunds"])
        #expect(refunds.preference(\.routes) == ["/refunds"])
        withExtendedLifetime(auth) {}
    }

    @Test("Children that are not members, and members that set nothing, contribute nothing")
    func onlyMembersContribute() {
        let host = Context(name: "host")
        let plainChild = host.child(name: "plain") { $0.preferences.routes = ["/not-a-member"] }
        let silent = host.member(name: "silent")
        let billing = host.member(name: "billing") { $0.preferences.routes = ["/invoices"] }
        #expect(host.preference(\.routes) == ["/invoices"])
        #expect(host.preference(\.homePage) == nil)
        withExtendedLifetime((plainChild, silent, billing)) {}
    }

    @Test("Preferences are not inherited: a child starts from the defaults")
    func notInherited() {
        let host = Context(name: "host") { $0.preferences.routes = ["/"] }
        var seen: [String]?
        let child = host.member(name: "child") { seen = $0.preferences.routes }
        #expect(seen == [])
        #expect(child.preference(\.routes) == [])
        #expect(host.preference(\.routes) == ["/"])
    }

    @Test("The built-in reducers: sum, first value, last value, set union and a custom maximum")
    func builtInReducers() {
        let host = Context(name: "host")
        let a = host.member(name: "a") {
            $0.preferences.poolSize = 4
            $0.preferences.homePage = "/a"
            $0.preferences.logLevelOverride = "info"
            $0.preferences.oauthScopes = ["read", "write"]
            $0.preferences.maxTimeout = 30
        }
        let b = host.member(name: "b") {
            $0.preferences.poolSize = 2
            $0.preferences.logLevelOverride = "trace"
            $0.preferences.oauthScopes = ["read", "admin"]
            $0.preferences.maxTimeout = 10
        }
        let c = host.member(name: "c") { $0.preferences.homePage = "/c" }
        #expect(host.preference(\.poolSize) == 6)
        #expect(host.preference(\.homePage) == "/a")
        #expect(host.preference(\.logLevelOverride) == "trace")
        #expect(host.preference(\.oauthScopes) == ["read", "write", "admin"])
        #expect(host.preference(\.maxTimeout) == 30)
        #expect(c.preference(\.maxTimeout) == .min)
        withExtendedLifetime((a, b, c)) {}
    }

    @Test("Reducing with the default changes nothing, for every built-in reducer and the custom one")
    func defaultIsIdentity() {
        expectDefaultIsIdentity(RoutesKey.self, samples: [[], ["/a"], ["/a", "/b", "/a"]])
        expectDefaultIsIdentity(ScopesKey.self, samples: [[], ["read"], ["read", "write"]])
        expectDefaultIsIdentity(PoolSizeKey.self, samples: [0, 1, -3, 1000])
        expectDefaultIsIdentity(HomePageKey.self, samples: [nil, "/a", ""])
        expectDefaultIsIdentity(LogLevelOverrideKey.self, samples: [nil, "trace", ""])
        expectDefaultIsIdentity(HealthChecksKey.self, samples: [[:], ["db": "ok"], ["db": "ok", "cache": "ok"]])
        expectDefaultIsIdentity(MaxTimeoutKey.self, samples: [.min, -1, 0, 30])
    }

    @Test("A member that sets the default value reads the same as one that sets nothing")
    func defaultContributionChangesNothing() {
        let host = Context(name: "host")
        let a = host.member(name: "a") {
            $0.preferences.poolSize = 3
            $0.preferences.homePage = "/a"
            $0.preferences.logLevelOverride = "info"
        }
        let before = (host.preference(\.poolSize), host.preference(\.homePage), host.preference(\.logLevelOverride))
        let defaults = host.member(name: "defaults") {
            $0.preferences.poolSize = PoolSizeKey.defaultValue
            $0.preferences.homePage = HomePageKey.defaultValue
            $0.preferences.logLevelOverride = LogLevelOverrideKey.defaultValue
            $0.preferences.routes = RoutesKey.defaultValue
        }
        #expect(host.preference(\.poolSize) == before.0)
        #expect(host.preference(\.homePage) == before.1)
        #expect(host.preference(\.logLevelOverride) == before.2)
        #expect(host.preference(\.routes) == [])
        withExtendedLifetime((a, defaults)) {}
    }

    @Test("preference(_:_:) sets a context's own value later; removeValue(for:) takes it back out")
    func setLater() {
        let host = Context(name: "host")
        let billing = host.member(name: "billing")
        billing.setPreference(\.routes, ["/invoices"])
        #expect(host.preference(\.routes) == ["/invoices"])
        billing.update { $0.preferences.removeValue(for: RoutesKey.self) }
        #expect(host.preference(\.routes) == [])
    }

    // MARK: - Observation

    @Test("Observing a preference notifies when a member is added, changes its contribution, or is removed")
    func observeChanges() {
        let host = Context(name: "host")
        let seen = Collector<[String]>()
        let token = host.observePreference(\.routes) { seen.append($0) }
        let billing = host.member(name: "billing", ownership: .owned) { $0.preferences.routes = ["/invoices"] }
        #expect(seen.all == [["/invoices"]])
        billing.contribute(\.routes, "/refunds")
        #expect(seen.all.last == ["/invoices", "/refunds"])
        let nested = billing.member(name: "nested", ownership: .owned) { $0.preferences.routes = ["/nested"] }
        #expect(seen.all.last == ["/invoices", "/refunds", "/nested"])
        nested.setPreference(\.routes, ["/nested/v2"])
        #expect(seen.all.last == ["/invoices", "/refunds", "/nested/v2"])
        host.removeMember(billing)
        #expect(seen.all.last == [])
        #expect(seen.count == 5)
        token.cancel()
        _ = host.member(name: "after cancel", ownership: .owned) { $0.preferences.routes = ["/x"] }
        #expect(seen.count == 5)
    }

    @Test("A weak member released and a member shut down each notify the observers above them")
    func observeEnds() async throws {
        let host = Context(name: "host")
        let seen = Collector<[String]>()
        let token = host.observePreference(\.routes) { seen.append($0) }
        var temporary: Context? = host.member(name: "temporary") { $0.preferences.routes = ["/temporary"] }
        let job = host.member(name: "job", ownership: .owned) { $0.preferences.routes = ["/job"] }
        #expect(seen.all.last == ["/temporary", "/job"])
        withExtendedLifetime(temporary) {}
        temporary = nil
        #expect(seen.all.last == ["/job"])
        try await job.shutdown()
        #expect(seen.all.last == [])
        #expect(seen.count == 4)
        token.cancel()
    }

    @Test("Changes outside the observed subtree, or to other keys, do not notify")
    func unrelatedChangesAreQuiet() {
        let root = Context(name: "root")
        let host = root.member(name: "host", ownership: .owned)
        let other = root.member(name: "other", ownership: .owned)
        let seen = Collector<[String]>()
        let token = host.observePreference(\.routes) { seen.append($0) }
        _ = other.member(name: "elsewhere", ownership: .owned) { $0.preferences.routes = ["/elsewhere"] }
        other.contribute(\.routes, "/other")
        host.update { $0.requestID = "unrelated key" }
        let member = host.member(name: "member", ownership: .owned) { $0.preferences.poolSize = 3 }
        member.setPreference(\.poolSize, 4)
        // The member's arrival is a membership change of the observed subtree, so it is delivered once,
        // with the same routes; nothing else is.
        #expect(seen.all == [[]])
        token.cancel()
    }

    @Test("A tracked read of a preference fires on a change of the subtree")
    func tracked() {
        let host = Context(name: "host")
        let fired = Counter()
        let routes = ObservationRegistry.withTracking {
            host.preference(\.routes)
        } onChange: {
            fired.increment()
        }
        #expect(routes == [])
        _ = host.member(name: "billing", ownership: .owned) { $0.preferences.routes = ["/invoices"] }
        #expect(fired.count == 1)
    }

    @Test("preferenceChanges(of:) yields the reduced value now, then after each change")
    func stream() async {
        let host = Context(name: "host") { $0.preferences.poolSize = 1 }
        var iterator = host.preferenceChanges(of: \.poolSize).makeAsyncIterator()
        #expect(await iterator.next() == 1)
        let member = host.member(name: "member", ownership: .owned) { $0.preferences.poolSize = 2 }
        #expect(await iterator.next() == 3)
        member.setPreference(\.poolSize, 5)
        #expect(await iterator.next() == 6)
    }
}

extension PreferenceTests {
    @Test("Members coming and going on many tasks: reads see this task's member, and the last delivery is final")
    func concurrentChanges() async {
        let host = Context(name: "host")
        let delivered = Collector<Int>()
        let token = host.observePreference(\.poolSize) { delivered.append($0) }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<25 {
                        let member = host.member(name: "m\(task)-\(round)", ownership: .owned) {
                            $0.preferences.poolSize = 1
                        }
                        // At least this task's member; at most every kept member plus one per task.
                        let size = host.preference(\.poolSize)
                        #expect(size >= 1 && size <= 40 + 8)
                        if round.isMultiple(of: 5) { continue }  // keep every fifth member
                        host.removeMember(member)
                    }
                }
            }
        }
        #expect(host.members.count == 8 * 5)
        #expect(host.preference(\.poolSize) == 40)
        #expect(delivered.all.last == 40)
        token.cancel()
    }
}

/// Checks the preference rule on samples: `reduce(default, x) == x` and `reduce(x, default) == x`.
func expectDefaultIsIdentity<Key: PreferenceKey>(
    _ key: Key.Type,
    samples: [Key.Value],
    sourceLocation: SourceLocation = #_sourceLocation
) where Key.Value: Equatable {
    for sample in samples {
        var fromDefault = Key.defaultValue
        Key.reduce(value: &fromDefault) { sample }
        #expect(fromDefault == sample, "reduce(default, \(sample)) of \(key)", sourceLocation: sourceLocation)
        var intoSample = sample
        Key.reduce(value: &intoSample) { Key.defaultValue }
        #expect(intoSample == sample, "reduce(\(sample), default) of \(key)", sourceLocation: sourceLocation)
    }
}
