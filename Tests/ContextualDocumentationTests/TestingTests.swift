import Contextual
import ContextualTesting
import Synchronization
import Testing

// The ```swift blocks of Articles/Testing.md, verbatim, and what their prose and comments claim. The
// article's suites and tests run as tests here too.

protocol PaymentGateway: Sendable {
    func charge(cents: Int) -> String
}

struct LiveGateway: PaymentGateway {
    func charge(cents: Int) -> String { "charged \(cents) live" }
}

struct RecordingGateway: PaymentGateway {
    func charge(cents: Int) -> String { "charged \(cents) in a test" }
}

struct NoGateway: PaymentGateway {
    func charge(cents: Int) -> String { "not charged" }
}

enum GatewayKey: ContextKey {
    static var defaultValue: any PaymentGateway { LiveGateway() }
    static var testValue: any PaymentGateway { unimplemented(placeholder: NoGateway()) }
}

enum CurrencyKey: ContextKey {
    static var defaultValue: String { "EUR" }
    static var testValue: String { "XTS" }  // the ISO 4217 code reserved for tests
}

extension ContextValues {
    var gateway: any PaymentGateway {
        get { self[GatewayKey.self] }
        set { self[GatewayKey.self] = newValue }
    }

    var currency: String {
        get { self[CurrencyKey.self] }
        set { self[CurrencyKey.self] = newValue }
    }
}

struct Checkout {
    @Injected(\.gateway) var gateway
    @Injected(\.currency) var currency

    func pay(cents: Int) -> String {
        "\(gateway.charge(cents: cents)) (\(currency))"
    }
}

@Suite(.context { $0.gateway = RecordingGateway() })
struct CheckoutTests {
    @Test("A payment goes through the test's gateway, in the test currency")
    func pays() {
        let receipt = Checkout().pay(cents: 500)
        #expect(receipt == "charged 500 in a test (XTS)")
    }

    @Test("A test's trait wins over its suite's", .context(\.currency, "CHF"))
    func paysInFrancs() {
        #expect(Checkout().pay(cents: 100) == "charged 100 in a test (CHF)")
    }
}

@Test("Forgetting the gateway fails the test, naming GatewayKey", .context { _ in })
func forgotTheGateway() {
    withKnownIssue {
        let receipt = Checkout().pay(cents: 500)  // records "Unimplemented: …GatewayKey was read…"
        #expect(receipt == "not charged (XTS)")  // the placeholder: the test goes on
    }
}

final class VisitCounter: Sendable {
    private let visits = Atomic(0)

    func visit() -> Int {
        visits.add(1, ordering: .relaxed).newValue
    }
}

enum VisitCounterKey: ContextKey {
    static var defaultValue: VisitCounter { VisitCounter() }
}

extension ContextValues {
    var visits: VisitCounter {
        get { self[VisitCounterKey.self] }
        set { self[VisitCounterKey.self] = newValue }
    }
}

@Test("Each test counts from 1", .context { _ in }, arguments: 1...3)
func countsFromOne(run: Int) {
    #expect(Context.current[\.visits].visit() == 1)
}

enum ShopWiring {
    static func production(_ values: inout ContextValues) {
        values.provide((any PaymentGateway).self, lifetime: .singleton) { _ in LiveGateway() }
    }
}

@Test(
    "The production wiring, with a recording gateway",
    .context { ShopWiring.production(&$0) },
    .context { $0.provide((any PaymentGateway).self, lifetime: .singleton) { _ in RecordingGateway() } }
)
func wiring() {
    expectValidWiring()
    #expect(Context.current.resolve((any PaymentGateway).self).charge(cents: 1) == "charged 1 in a test")
}

@Test func chargesLive() {
    let receipt = Context.live(name: "integration").run { Checkout().pay(cents: 1) }
    #expect(receipt == "charged 1 live (EUR)")
}

@Suite("Testing")
struct TestingTests {
    @Test("Outside a test context, in a test process, keys read test values shared by the process, never production")
    func production() {
        #expect(Checkout().pay(cents: 1) == "not charged (XTS)")
        #expect(!Context.current.isTesting)
        #expect(Context.root[\.visits] === Context(name: "app")[\.visits])
    }

    @Test("The forgotten gateway's issue names the key and the test context")
    func forgottenGatewayIssue() {
        withKnownIssue {
            _ = withTestContext(name: "forgot") { Checkout().pay(cents: 500) }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("GatewayKey") && $0.rawValue.contains("'forgot'") }
        }
    }

    @Test("withTestContext runs its closure in a fresh test context")
    func withoutSwiftTesting() {
        let receipt = withTestContext {
            $0.gateway = RecordingGateway()
        } operation: {
            Checkout().pay(cents: 250)
        }  // "charged 250 in a test (XTS)"
        let visits = withTestContext { Context.current[\.visits].visit() }  // 1, in every test context

        #expect(receipt == "charged 250 in a test (XTS)")
        #expect(visits == 1)
        #expect(withTestContext { Context.current[\.visits].visit() } == 1)
    }

    @Test("A key path assignment of an unimplemented key reports nothing", .context { _ in })
    func keyPathAssignment() {
        let child = Context.current.child(\.gateway, RecordingGateway())
        #expect(child[\.gateway].charge(cents: 2) == "charged 2 in a test")
    }

    @Test("The manual clock fires when advanced; the immediate clock returns at once; the output keeps lines")
    func clocksAndOutput() async throws {
        // In a process of its own, so that "no real wait" is timed apart from the tests running in parallel:
        // their tasks (10,000 of one test) queue ahead of each await here, which under AddressSanitizer
        // held this test for a minute of a correct clock.
        await #expect(processExitsWith: .success) {
            let start = ContinuousClock.now
            let clock = ManualClock()
            let reminder = Task {
                try await clock.sleep(for: .seconds(30))
                return "remind"
            }
            while clock.sleeperCount == 0 { await Task.yield() }
            clock.advance(by: .seconds(30))
            let fired = try await reminder.value  // "remind", with no real wait

            let immediate: any Clock<Duration> = ImmediateClock()
            try await immediate.sleep(for: .seconds(3600))  // returns at once

            var output = CapturingOutput()
            print("done", to: &output)
            let lines = output.lines  // ["done"]

            // An exit test reports its process's exit status: a broken promise stops it, saying which.
            precondition(fired == "remind", "the reminder returned \(fired)")
            precondition(lines == ["done"], "the output kept \(lines)")
            precondition(ContinuousClock.now - start < .seconds(30), "a real wait: \(ContinuousClock.now - start)")
        }
    }
}
