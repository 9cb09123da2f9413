import Testing

@testable import Contextual

// MARK: - Keys whose defaults read other keys

private enum LocaleCodeKey: ContextKey {
    static var defaultValue: String { "en" }
}

/// Read by no other test: its default is computed first by the test that registers a provider for it.
private enum GreetingKey: ContextKey {
    static var defaultValue: String { Context.current[LocaleCodeKey.self] == "fr" ? "bonjour" : "hello" }
}

/// Read by no other test: its default is computed first by the tracked read below.
private enum BannerKey: ContextKey {
    static var defaultValue: String { "welcome (\(Context.current[LocaleCodeKey.self]))" }
}

extension ContextValues {
    fileprivate var greeting: String {
        get { self[GreetingKey.self] }
        set { self[GreetingKey.self] = newValue }
    }

    fileprivate var banner: String {
        get { self[BannerKey.self] }
        set { self[BannerKey.self] = newValue }
    }
}

/// A key's default is computed once and kept: what its computation reads belongs to no read that
/// triggered it.
@Suite("Defaults that read other keys")
struct DefaultReadsTests {
    @Test("A provider registers on a key whose default reads another key, the first time it is computed")
    func provideOverADefaultThatReads() {
        // Before: registering learned the key from the getter's reads, the default's own read included,
        // and stopped the process ("the getter … read [GreetingKey, LocaleCodeKey]").
        let app = Context(name: "app") { $0.provide(\.greeting, lifetime: .singleton) { _ in "hi" } }
        #expect(app[\.greeting] == "hi")
    }

    @Test("A tracked read that computes a default does not depend on what the default read")
    func trackedReadOfADefault() {
        let app = Context(name: "app")
        let fired = Counter()
        let banner = ObservationRegistry.withTracking {
            app[\.banner]
        } onChange: {
            fired.increment()
        }
        #expect(banner == "welcome (en)")
        // The kept default does not follow the locale: a change there changes nothing the read saw.
        app.update { $0[LocaleCodeKey.self] = "fr" }
        #expect(fired.count == 0)
        #expect(app[\.banner] == "welcome (en)")
        app.update { $0.banner = "hi" }
        #expect(fired.count == 1)
    }
}
