// Unimplemented test values: a read in a test records an issue naming the key and the line; outside, the default.

import Contextual
import ContextualTesting
import Synchronization
import Testing

@Suite("Unimplemented test values")
struct UnimplementedTests {
    @Test(
        "Reading an unimplemented key inside a test records an issue naming the key and the reading line",
        .context { _ in }
    )
    func recordsAnIssue() {
        let line = #line + 2
        withKnownIssue {
            let payments = Context.current[\.payments]
            #expect(payments == "no payments")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("PaymentsKey") }
                && issue.sourceLocation?.fileName == "UnimplementedTests.swift"
                && issue.sourceLocation?.line == line
        }
    }

    @Test(
        "A read through an @Injected property records the issue at the line that reads the property",
        .context { _ in }
    )
    func injectedReadLine() {
        struct Checkout {
            @Injected(\.payments) var payments
        }
        let checkout = Checkout()
        let line = #line + 2
        withKnownIssue {
            let payments = checkout.payments
            #expect(payments == "no payments")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("PaymentsKey") }
                && issue.sourceLocation?.fileName == "UnimplementedTests.swift"
                && issue.sourceLocation?.line == line
        }
    }

    @Test(
        "A read inside a test file's extension of Context records the issue at the line in that extension",
        .context { _ in }
    )
    func readInAnExtension() {
        let expected = Context.paymentsReadLine
        withKnownIssue {
            let payments = Context.current.paymentsFromAnExtension()
            #expect(payments == "no payments")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("PaymentsKey") }
                && issue.sourceLocation?.fileName == "UnimplementedTests.swift"
                && issue.sourceLocation?.line == expected
        }
    }

    @Test("Each read of an unimplemented key records an issue", .context { _ in })
    func everyRead() {
        let reads = Counter()
        withKnownIssue {
            _ = Context.current[\.payments]
            _ = Context.current.child()[\.payments]
        } matching: { issue in
            reads.increment()
            return issue.comments.contains { $0.rawValue.contains("PaymentsKey") }
        }
        #expect(reads.value == 2)
    }

    @Test("An unimplemented key without a placeholder reads its default after recording", .context { _ in })
    func withoutPlaceholder() {
        let line = #line + 2
        withKnownIssue {
            let legacy = Context.current[\.legacy]
            #expect(legacy == 42)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("LegacyKey") } && issue.sourceLocation?.line == line
        }
    }

    @Test(
        "Setting an unimplemented key in the test context reads the value set, with no issue",
        .context(\.payments, "fake")
    )
    func setInTheTest() {
        #expect(Context.current[\.payments] == "fake")
    }

    @Test("Outside a test context, in a test process, an unimplemented key reads its placeholder, never production")
    func outsideATest() {
        #expect(Context.current[\.payments] == "no payments")
        #expect(Context(name: "app")[\.payments] == "no payments")
        #expect(Context.root.child()[\.legacy] == 42)
    }

    @Test("A live context reads an unimplemented key's production default, with no issue")
    func inALiveContext() {
        #expect(Context.live(name: "integration")[\.payments] == "live payments")
        #expect(Context.live().child()[\.legacy] == 42)
    }

    @Test("Context.testing hands each unimplemented read to its handler")
    func handler() {
        let reads = Reads()
        let context = Context.testing(name: "handled", onUnimplementedRead: { reads.append($0) })
        #expect(context[\.payments] == "no payments")
        #expect(reads.all == [UnimplementedRead(key: String(reflecting: PaymentsKey.self), contextName: "handled")])
        #expect(reads.all.first?.description.contains("PaymentsKey") == true)
        // The fix names the key itself, in code that compiles as written.
        let key = String(reflecting: PaymentsKey.self)
        #expect(reads.all.first?.description.contains("`.context { $0[\(key).self] = … }`") == true)
    }
}

extension Context {
    /// The line of the read in ``paymentsFromAnExtension()``.
    static let paymentsReadLine = #line + 4

    /// Reads the payments key in a member of this module's extension of a Contextual type.
    func paymentsFromAnExtension() -> String {
        self[\.payments]
    }
}

/// A count that the matcher of `withKnownIssue`, a `@Sendable` closure, can change.
final class Counter: Sendable {
    private let count = Atomic(0)

    var value: Int { count.load(ordering: .relaxed) }

    func increment() {
        count.add(1, ordering: .relaxed)
    }
}

/// The reads a handler received.
final class Reads: Sendable {
    private let reads = Mutex<[UnimplementedRead]>([])

    var all: [UnimplementedRead] { reads.withLock { $0 } }

    func append(_ read: UnimplementedRead) {
        reads.withLock { $0.append(read) }
    }
}

@Suite("Setting unimplemented keys")
struct SettingUnimplementedKeyTests {
    @Test("Setting an unimplemented key through a key path in a test context records no issue", .context { _ in })
    func keyPathWrites() {
        let child = Context.current.child(\.payments, "fake")
        #expect(child[\.payments] == "fake")
        let updated = Context.testing(name: "updated", onUnimplementedRead: { _ in Issue.record("reported") })
        updated.update { $0.payments = "set" }
        #expect(updated[\.payments] == "set")
    }
}
