// `withTestContext`: the same isolation for XCTest and plain code, sync and async; escaping work.

import Contextual
import ContextualTesting
import Testing

@Suite("withTestContext")
struct WithTestContextTests {
    @Test("The synchronous form runs its closure in a fresh test context that sets its values")
    func synchronous() {
        let (greeting, number, isTesting) = withTestContext {
            $0.requestNumber = 7
        } operation: {
            (Context.current[\.greeting], Greeter().requestNumber, Context.current.isTesting)
        }
        #expect(greeting == "test")
        #expect(number == 7)
        #expect(isTesting)
        #expect(Context.current === Context.root)
    }

    @Test("The asynchronous form runs its closure and its child tasks in a fresh test context")
    func asynchronous() async {
        let number = await withTestContext {
            $0.requestNumber = 9
        } operation: {
            await Task.yield()
            async let fromChild = Context.current[\.requestNumber]
            return await fromChild
        }
        #expect(number == 9)
    }

    @Test("Each withTestContext computes its defaults afresh: a counting default returns 1 in each")
    func countingDefault() async {
        let first = withTestContext { Context.current[\.callCounter].next() }
        let second = withTestContext { Context.current[\.callCounter].next() }
        let third = await withTestContext {
            await Task.yield()
            return Context.current[\.callCounter].next()
        }
        #expect([first, second, third] == [1, 1, 1])
    }

    @Test("Work escaping the test context (a detached task reading after it ended) reads that context")
    func escapingWork() async {
        let greeters = (1...8).map { number in
            withTestContext {
                $0.requestNumber = number
            } operation: {
                Greeter()
            }
        }
        // The contexts have ended; detached tasks, which inherit no task-local, read them through @Injected.
        let numbers = await withTaskGroup(of: Int.self) { group in
            for greeter in greeters {
                group.addTask { await Task.detached { greeter.requestNumber }.value }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(numbers.sorted() == Array(1...8))
    }

    @Test(
        "A detached task started in a test reads the test's context through what it captured",
        .context(\.requestNumber, 5)
    )
    func detachedInATest() async {
        let greeter = Greeter()
        let context = Context.current
        let (viaInjected, viaContext, current) = await Task.detached {
            (greeter.requestNumber, context[\.requestNumber], Context.current === Context.root)
        }.value
        #expect(viaInjected == 5)
        #expect(viaContext == 5)
        // Context.current is task-local: a detached task does not inherit it.
        #expect(current)
    }

    @Test("An unimplemented read inside withTestContext records an issue")
    func unimplemented() {
        withKnownIssue {
            let payments = withTestContext { Context.current[\.payments] }
            #expect(payments == "no payments")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("PaymentsKey") }
        }
    }
}

@Suite("withTestContext inside a context trait", .context { $0.greeting = "from the suite" })
struct WithTestContextInsideTraitTests {
    @Test("withTestContext starts from the test's context: the trait's wiring stays, its closure overrides")
    func keepsTheTraitsWiring() async {
        let (greeting, number) = withTestContext {
            $0.requestNumber = 7
        } operation: {
            (Context.current[\.greeting], Context.current[\.requestNumber])
        }
        #expect(greeting == "from the suite")
        #expect(number == 7)
        let asyncGreeting = await withTestContext { () async in Context.current[\.greeting] }
        #expect(asyncGreeting == "from the suite")
        // The override stays inside: the test's context is unchanged.
        #expect(Context.current[\.requestNumber] == 0)
    }
}
