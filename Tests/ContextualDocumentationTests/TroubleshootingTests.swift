import Contextual
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The ```swift blocks of Articles/Troubleshooting.md, verbatim; for each error code, a test of its typical
// cause (the code and what the message says) and of its fix.

// MARK: - missingObject

final class Notifier: Sendable {}

struct SignupHandler {
    @Injected(Notifier.self) var notifier
    @Injected(Notifier.self) var optionalNotifier: Notifier?
}

// MARK: - factoryFailed

enum FlagsURLKey: ContextKey {
    static var defaultValue: String? { nil }
}

extension ContextValues {
    var flagsURL: String? {
        get { self[FlagsURLKey.self] }
        set { self[FlagsURLKey.self] = newValue }
    }
}

struct MissingFlagsURL: Error {}

final class FeatureFlags: Sendable {
    let source: String
    init(source: String) { self.source = source }
}

// MARK: - cycle

final class CustomerDirectory: Sendable {}

final class Accounts: Sendable {
    let directory: CustomerDirectory
    init(directory: CustomerDirectory) { self.directory = directory }
}

final class Billing: Sendable {
    let directory: CustomerDirectory
    init(directory: CustomerDirectory) { self.directory = directory }
}

/// The cause, for the test: two services that take each other in their factories.
private final class CyclicAccounts: Sendable {}
private final class CyclicBilling: Sendable {}

// MARK: - captiveDependency

final class RequestLog: Sendable {}

final class ErrorReporter: Sendable {
    let log: RequestLog
    init(log: RequestLog) { self.log = log }
}

// MARK: - asyncProvider

final class SearchIndex: Sendable {
    static func load() async throws -> SearchIndex { SearchIndex() }
}

// MARK: - shutdownFailed

struct FlushFailed: Error {}

final class Spool: ScopeShutdown {
    func shutdown() async throws { throw FlushFailed() }
}

// MARK: - duplicateContribution

enum JobsKey: DictionaryContributionKey {
    typealias EntryKey = String
    typealias EntryValue = String
}

extension PreferenceValues {
    var jobs: Contributions<String, String> {
        get { self[JobsKey.self] }
        set { self[JobsKey.self] = newValue }
    }
}

// MARK: - defaultCycle

enum RegionKey: ContextKey {
    static var defaultValue: String { Context.current[RegionCurrencyKey.self] == "EUR" ? "eu" : "us" }
}

enum RegionCurrencyKey: ContextKey {
    static var defaultValue: String { Context.current[RegionKey.self] == "eu" ? "EUR" : "USD" }
}

enum StoreRegionKey: ContextKey {
    static var defaultValue: String { "us" }  // the source: reads no other key
}

enum StoreCurrencyKey: ContextKey {
    static var defaultValue: String { currencyCode(forRegion: StoreRegionKey.defaultValue) }
}

func currencyCode(forRegion region: String) -> String { region == "eu" ? "EUR" : "USD" }

/// The synchronous `require`, callable from an async test (where `require` is the async form).
private func requireNow<T: Sendable>(_ type: T.Type, from context: Context) throws(ContextError) -> T {
    try context.require(type)
}

@Suite("Troubleshooting")
struct TroubleshootingTests {
    @Test("An error prints its message prefixed with 'Contextual:' and carries its details")
    func errorAnatomy() {
        let request = Context(name: "app").child(name: "request")
        let error = #expect(throws: ContextError.self) { try request.require(Notifier.self) }
        #expect(error?.description == "Contextual: " + (error?.message ?? ""))
        #expect(error?.requestedType?.hasSuffix("Notifier") == true)
        #expect(error?.searchedContexts == ["request", "app"])
        #expect(error?.resolutionPath == [])
        #expect(error?.underlyingErrors.isEmpty == true)
    }

    // MARK: missingObject

    @Test("missingObject: the cause names the contexts searched; the fix provides it on an ancestor")
    func missingObject() throws {
        let sibling = Context(name: "app").child(name: "sibling") { $0.provide(Notifier()) }
        let elsewhere = sibling.parent!.child(name: "elsewhere")
        let error = #expect(throws: ContextError.self) { try elsewhere.require(Notifier.self) }
        #expect(error?.code == .missingObject)
        #expect(error?.message.contains("'elsewhere' → 'app'") == true)

        let app = Context(name: "app") { $0.provide(Notifier()) }
        let request = app.child(name: "request")
        let handler = request.run { SignupHandler() }  // bound to `request`, which sees the app's Notifier
        let sameNotifier = handler.notifier === (try request.require(Notifier.self))  // true
        let unbound = SignupHandler()  // made outside run: bound to Context.root
        let missing = unbound.optionalNotifier  // nil, where `unbound.notifier` would stop the process

        #expect(sameNotifier)
        #expect(unbound.$notifier.context === Context.root)
        #expect(missing == nil)
    }

    @Test("missingObject: an @Injected property by type bound to the root stops the process on access")
    func missingObjectStops() async {
        await #expect(processExitsWith: .failure) {
            let unbound = SignupHandler()
            _ = unbound.notifier
        }
    }

    // MARK: factoryFailed

    @Test("factoryFailed: what the factory threw is underlying; nothing is cached; the fix resolves again")
    func factoryFailed() throws {
        let printed = Lines()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let service = Context(name: "service") {
            $0.provide(FeatureFlags.self, lifetime: .singleton) { ctx in
                guard let url = ctx[\.flagsURL] else { throw MissingFlagsURL() }
                return FeatureFlags(source: url)
            }
        }
        do {
            _ = try service.require(FeatureFlags.self)
        } catch {
            print(error.code, error.underlyingErrors)  // factoryFailed [MissingFlagsURL()]
        }
        service.update { $0.flagsURL = "https://flags.example.com" }
        let flags = try service.require(FeatureFlags.self)  // built now: the failure was not cached

        #expect(printed.all.count == 1)
        #expect(printed.all.first?.hasPrefix("factoryFailed [") == true)
        #expect(printed.all.first?.contains("MissingFlagsURL()") == true)
        #expect(flags.source == "https://flags.example.com")
        #expect(try service.require(FeatureFlags.self) === flags)
    }

    // MARK: cycle

    @Test("cycle: the whole circle is the resolution path; the fix shares a third provider")
    func cycle() throws {
        let cyclic = Context(name: "shop") {
            $0.provide(CyclicAccounts.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(CyclicBilling.self)
                return CyclicAccounts()
            }
            $0.provide(CyclicBilling.self, lifetime: .singleton) { ctx in
                _ = try ctx.require(CyclicAccounts.self)
                return CyclicBilling()
            }
        }
        let error = #expect(throws: ContextError.self) { try cyclic.require(CyclicAccounts.self) }
        #expect(error?.code == .cycle)
        #expect(
            error?.resolutionPath == [
                "CyclicAccounts (singleton)", "CyclicBilling (singleton)", "CyclicAccounts (singleton)",
            ]
        )

        let shop = Context(name: "shop") {
            $0.provide(CustomerDirectory.self, lifetime: .singleton) { _ in CustomerDirectory() }
            $0.provide(Accounts.self, lifetime: .singleton) { ctx in
                Accounts(directory: try ctx.require(CustomerDirectory.self))
            }
            $0.provide(Billing.self, lifetime: .singleton) { ctx in
                Billing(directory: try ctx.require(CustomerDirectory.self))
            }
        }
        try shop.validate()  // passes: no provider resolves another in a circle

        #expect(try shop.require(Accounts.self).directory === (try shop.require(Billing.self).directory))
    }

    // MARK: captiveDependency

    @Test("captiveDependency: a singleton taking a scoped object; the fix makes it scoped")
    func captiveDependency() throws {
        let captive = Context(name: "api") {
            $0.provide(RequestLog.self, lifetime: .scoped) { _ in RequestLog() }
            $0.provide(ErrorReporter.self, lifetime: .singleton) { app in
                ErrorReporter(log: try app.require(RequestLog.self))
            }
        }
        let error = #expect(throws: ContextError.self) {
            try captive.scope(name: "call").require(ErrorReporter.self)
        }
        #expect(error?.code == .captiveDependency)
        #expect(error?.resolutionPath == ["ErrorReporter (singleton)", "RequestLog (scoped)"])

        let api = Context(name: "api") {
            $0.provide(RequestLog.self, lifetime: .scoped) { _ in RequestLog() }
            $0.provide(ErrorReporter.self, lifetime: .scoped) { request in
                ErrorReporter(log: try request.require(RequestLog.self))
            }
        }
        let call = api.scope(name: "call")
        let reporter = try call.require(ErrorReporter.self)
        let sharesTheLog = reporter.log === (try call.require(RequestLog.self))  // true: both belong to `call`

        #expect(sharesTheLog)
        #expect(try api.scope(name: "other call").require(ErrorReporter.self) !== reporter)
    }

    // MARK: noScope

    @Test("noScope: resolving a scoped object from its registrar; the fix resolves from a scope")
    func noScope() throws {
        let backend = Context(name: "backend") {
            $0.provide(RequestLog.self, lifetime: .scoped) { _ in RequestLog() }
        }
        let work = backend.scope(name: "request 1")
        let log = try work.require(RequestLog.self)  // `try backend.require(RequestLog.self)` throws .noScope

        let error = #expect(throws: ContextError.self) { try backend.require(RequestLog.self) }
        #expect(error?.code == .noScope)
        #expect(error?.message.contains("backend.scope(name:") == true)
        #expect(try work.require(RequestLog.self) === log)
    }

    // MARK: scopeEnded

    @Test("scopeEnded: work that outlives its scope; the fix resolves while it runs, or uses a new scope")
    func scopeEnded() async throws {
        let gateway = Context(name: "gateway") {
            $0.provide(RequestLog.self, lifetime: .scoped) { _ in RequestLog() }
        }
        let handedOver = try await gateway.withScope(name: "request 2") { request in
            try request.require(RequestLog.self)  // resolved while the scope runs
        }
        let followUp = gateway.scope(name: "follow-up")  // new work, new scope
        let freshLog = try followUp.require(RequestLog.self)

        #expect(handedOver !== freshLog)
        let leaked = try await gateway.withScope(name: "request 3") { request in request }
        let error = #expect(throws: ContextError.self) { try leaked.require(RequestLog.self) }
        #expect(error?.code == .scopeEnded)
        let addError = #expect(throws: ContextError.self) { try gateway.addMember(leaked) }
        #expect(addError?.code == .scopeEnded)
    }

    // MARK: buildTimedOut and cancelled

    @Test("buildTimedOut and cancelled: a limit the waiting context sets, and a cancelled waiter")
    func buildTimedOutAndCancelled() async throws {
        let slowBoot = Context(name: "warehouse") {
            $0.buildWaitLimit = .seconds(120)  // the catalog takes minutes to load
            $0.provide(Catalog.self, lifetime: .singleton) { _ in Catalog() }
        }
        let limit = slowBoot[\.buildWaitLimit]  // 120 seconds

        let cancelledLookup = Task { () -> Catalog? in
            do {
                return try await slowBoot.prepare(Catalog.self)
            } catch is CancellationError {
                return nil  // the request went away
            }
        }
        let catalog = try await cancelledLookup.value  // the catalog: this task was not cancelled

        #expect(limit == .seconds(120))
        #expect(Context(name: "default")[\.buildWaitLimit] == .seconds(30))
        #expect(catalog != nil)
        #expect(catalog === (try slowBoot.require(Catalog.self)))
    }

    // MARK: asyncProvider

    @Test("asyncProvider: a synchronous resolve before the build; the fix builds it at boot")
    func asyncProvider() async throws {
        let cold = Context(name: "search") {
            $0.provide(SearchIndex.self, lifetime: .singleton) { _ in try await SearchIndex.load() }
        }
        let error = #expect(throws: ContextError.self) { try requireNow(SearchIndex.self, from: cold) }
        #expect(error?.code == .asyncProvider)
        #expect(error?.message.contains("try await context.prepare(") == true)

        let search = Context(name: "search") {
            $0.provide(SearchIndex.self, lifetime: .singleton) { _ in try await SearchIndex.load() }
        }
        try await search.prepare()  // builds it now, awaiting its factory
        let index: SearchIndex? = search.resolve(SearchIndex.self)  // built: synchronous resolves return it

        #expect(index != nil)
        #expect(try requireNow(SearchIndex.self, from: search) === index)
        #expect(try await cold.prepare(SearchIndex.self) === (try requireNow(SearchIndex.self, from: cold)))
    }

    // MARK: providerUnavailable

    @Test("providerUnavailable: reading a provider in the closure that registers it stops the process")
    func providerUnavailable() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let broken = Context(name: "broken") {
                $0.provide(Notifier.self, lifetime: .singleton) { _ in Notifier() }
                _ = $0.object(Notifier.self)  // stops the process: the context does not exist yet
            }
            _ = broken
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("was read inside the configuring closure that registers its provider"))
    }

    @Test("providerUnavailable: the fix reads once the context is made, or from a child's closure")
    func providerUnavailableFix() throws {
        let base = Context(name: "base") {
            $0.provide(Notifier.self, lifetime: .singleton) { _ in Notifier() }
        }
        let readAfter = try base.require(Notifier.self)  // read once the context is made
        var readInChild: Notifier?
        let derived = base.child(name: "derived") { readInChild = $0.object(Notifier.self) }  // the parent's

        #expect(readInChild === readAfter)
        #expect(try derived.require(Notifier.self) === readAfter)
    }

    // MARK: validationFailed

    @Test("validationFailed: each problem is underlying; the fix provides what is missing")
    func validationFailed() throws {
        let printed = Lines()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let boot = Context(name: "boot") {
            $0.provide(Accounts.self, lifetime: .singleton) { ctx in
                Accounts(directory: try ctx.require(CustomerDirectory.self))
            }
        }
        do {
            try boot.validate()
        } catch {
            for case let problem as ContextError in error.underlyingErrors {  // error.code is .validationFailed
                print(problem.code, problem.requestedType ?? "-")  // missingObject ….CustomerDirectory
            }
        }
        boot.update { $0.provide(CustomerDirectory()) }  // where the singleton's factory resolves from
        try boot.validate()  // passes

        #expect(printed.all.count == 1)
        #expect(printed.all.first?.hasPrefix("missingObject ") == true)
        #expect(printed.all.first?.hasSuffix(".CustomerDirectory") == true)
        let error = #expect(throws: ContextError.self) {
            try Context(name: "other") {
                $0.provide(Accounts.self, lifetime: .singleton) { ctx in
                    Accounts(directory: try ctx.require(CustomerDirectory.self))
                }
            }
            .validate()
        }
        #expect(error?.message.contains("1. [missingObject]") == true)
    }

    // MARK: shutdownFailed

    @Test("shutdownFailed: what each object threw is underlying, and the scope ended all the same")
    func shutdownFailed() async throws {
        let printed = Lines()
        @Sendable func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let printer = Context(name: "printer") {
            $0.provide(Spool.self, lifetime: .scoped) { _ in Spool() }
        }
        let job = printer.scope(name: "job 1")
        _ = try job.require(Spool.self)
        do {
            try await job.shutdown()
        } catch {
            print(error.code, error.underlyingErrors)  // shutdownFailed [FlushFailed()]
        }
        let ended = job.isEnded  // true: the scope ended all the same

        #expect(printed.all.count == 1)
        #expect(printed.all.first?.hasPrefix("shutdownFailed [") == true)
        #expect(printed.all.first?.contains("FlushFailed()") == true)
        #expect(ended)
        try await job.shutdown()  // does nothing: it ended
    }

    // MARK: notADirectChild

    @Test("notADirectChild: registering a grandchild; the fix registers it with its own parent")
    func notADirectChild() throws {
        let company = Context(name: "company")
        let team = company.member(name: "team", ownership: .owned)
        let person = team.child(name: "person")
        try team.addMember(person)  // its own parent; `try company.addMember(person)` throws .notADirectChild
        let listed = company.members.first?.context.members.map(\.name)  // ["person"], through the team

        #expect(listed == ["person"])
        let stranger = team.child(name: "stranger")
        let error = #expect(throws: ContextError.self) { try company.addMember(stranger) }
        #expect(error?.code == .notADirectChild)
    }

    // MARK: alreadyAMember

    @Test("alreadyAMember: a second registration; the fix removes it first to change its ownership")
    func alreadyAMember() throws {
        let crowd = Context(name: "crowd")
        let twice = crowd.member(name: "twice")
        let error = #expect(throws: ContextError.self) { try crowd.addMember(twice, ownership: .owned) }
        #expect(error?.code == .alreadyAMember)

        let pool = Context(name: "pool")
        let worker = pool.member(name: "worker")  // registered, weakly
        pool.removeMember(worker)
        try pool.addMember(worker, ownership: .owned)  // registered again, now owned
        let ownership = pool.members.first?.ownership  // .owned

        #expect(ownership == .owned)
        #expect(pool.members.count == 1)
    }

    // MARK: duplicateContribution

    @Test("duplicateContribution: two modules use one key; the fix gives each its own")
    func duplicateContribution() throws {
        let clashing = Context(name: "scheduler")
        let a = clashing.member(name: "a", ownership: .owned)
        let b = clashing.member(name: "b", ownership: .owned)
        a.contribute(\.jobs, key: "nightly", "0 3 * * *")
        b.contribute(\.jobs, key: "nightly", "0 4 * * *")
        let error = #expect(throws: ContextError.self) { try clashing.contributions(\.jobs) }
        #expect(error?.code == .duplicateContribution)
        #expect(error?.message.contains("from 'scheduler → a' and from 'scheduler → b'") == true)
        #expect(error?.message.contains("JobsKey") == true)
        #expect(throws: ContextError.self) { try clashing.preference(\.jobs).dictionary() }

        let scheduler = Context(name: "scheduler")
        let reports = scheduler.member(name: "reports", ownership: .owned)
        let cleanup = scheduler.member(name: "cleanup", ownership: .owned)
        reports.contribute(\.jobs, key: "reports.nightly", "0 3 * * *")
        cleanup.contribute(\.jobs, key: "cleanup.nightly", "0 4 * * *")  // a key of its own: no clash
        let jobs = try scheduler.contributions(\.jobs)  // both jobs

        #expect(jobs == ["reports.nightly": "0 3 * * *", "cleanup.nightly": "0 4 * * *"])
    }

    // MARK: defaultCycle

    @Test("defaultCycle: two defaults that read each other stop the process with the loop, in order")
    func defaultCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            Task.detached {  // a read that hangs (the bug) fails the test instead of hanging it
                try? await Task.sleep(for: .seconds(10))
                exit(0)
            }
            Context.live().run { _ = Context.current[RegionKey.self] }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Contextual: default value cycle: RegionKey → RegionCurrencyKey → RegionKey."))
        #expect(ContextError.Code.defaultCycle.description == "defaultCycle")
    }

    // MARK: incompatibleBootReport

    @Test("incompatibleBootReport: a baseline of another format version is refused; the fix writes it again")
    func incompatibleBootReport() async throws {
        let baselineText = #"{"formatVersion": 0}"#  // a baseline written by another version
        do {
            _ = try BootReport(json: baselineText, source: "boot-baseline.json")
        } catch {
            print(error.code)  // incompatibleBootReport: "… is in format version 0, but this version … reads … 1"
        }
        let fresh = await Context(name: "app").bootReport()
        let newBaseline = fresh.json  // write it to boot-baseline.json and commit it

        let error = #expect(throws: ContextError.self) {
            try BootReport(json: baselineText, source: "boot-baseline.json")
        }
        #expect(error?.code == .incompatibleBootReport)
        #expect(error?.message.contains("boot-baseline.json is in format version 0") == true)
        #expect(error?.message.contains("reads and writes format version 1") == true)
        #expect(ContextError.Code.incompatibleBootReport.description == "incompatibleBootReport")
        #expect(try BootReport(json: newBaseline) == fresh)
    }

    // MARK: bootReportFileFailed

    @Test("bootReportFileFailed: a baseline never recorded names its path; the fix writes one there")
    func bootReportFileFailed() async throws {
        var template = Array("/tmp/contextual-baseline-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer {
            unlink(directory + "/boot-baseline.json")
            rmdir(directory)
        }
        let path = directory + "/boot-baseline.json"
        do {
            _ = try BootReport(contentsOfFile: path)
        } catch {
            print(error.code)  // bootReportFileFailed: "… '…/boot-baseline.json': there is no such file …"
        }
        let report = await Context(name: "app").bootReport()
        try report.write(toFile: path)  // the baseline: commit it
        let baseline = try BootReport(contentsOfFile: path)

        #expect(baseline == report)
        unlink(path)
        let error = #expect(throws: ContextError.self) { try BootReport(contentsOfFile: path) }
        #expect(error?.code == .bootReportFileFailed)
        #expect(error?.message.contains("'\(path)': there is no such file") == true)
        #expect(error?.message.contains("Fix: record the baseline first") == true)
        #expect(ContextError.Code.bootReportFileFailed.description == "bootReportFileFailed")
        let relative = #expect(throws: ContextError.self) {
            try BootReport(contentsOfFile: "no-such-directory/boot-baseline.json")
        }
        #expect(relative?.message.contains("(a relative path, from the working directory '") == true)
    }

    // MARK: invalidConfiguration

    @Test("invalidConfiguration: a source that breaks a rule changes nothing and names the rule")
    func invalidConfiguration() throws {
        let app = try Context(name: "app") { try fleetMapping().apply(["database.url": "postgres://db/app"], to: &$0) }
        do {
            try app.update(from: ["database.url": "mysql://db/app"], with: fleetMapping())
        } catch {
            print(error.code)  // invalidConfiguration: "… the rule \"the database is PostgreSQL\" is broken …"
        }
        let error = #expect(throws: ContextError.self) {
            try app.update(from: ["database.url": "mysql://db/app"], with: fleetMapping())
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(ContextError.Code.invalidConfiguration.description == "invalidConfiguration")
        #expect(error?.message.contains("the rule \"the database is PostgreSQL\" is broken") == true)
        #expect(app[\.config].databaseURL == "postgres://db/app")
    }

    @Test("defaultCycle: the fix derives one default from the other's source, and per context where read")
    func defaultCycleFix() {
        let currency = Context.root[StoreCurrencyKey.self]  // "USD": derived from the region's default, no loop
        let shop = Context.root.child(name: "eu shop") { $0[StoreRegionKey.self] = "eu" }
        let euro = currencyCode(forRegion: shop[StoreRegionKey.self])  // "EUR": derived where it is read

        #expect(currency == "USD")
        #expect(euro == "EUR")
    }
}

final class Catalog: Sendable {}
