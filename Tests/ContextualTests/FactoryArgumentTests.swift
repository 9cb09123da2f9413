import Foundation
import Testing

@testable import Contextual

// Factories that take runtime arguments and resolve the rest from their context.

private struct Report: Sendable {
    let user: String
    let days: Int
    let tenant: String
}

private final class Upload: ScopeShutdown {
    let name: String
    let log: Collector<String>

    init(name: String, log: Collector<String>) {
        self.name = name
        self.log = log
    }

    func shutdown() async throws { log.append("shutdown \(name)") }
}

private struct Loop: Sendable {}

@Suite("Factories with runtime arguments")
struct FactoryArgumentTests {
    private let app = Context(name: "app") {
        $0.requestID = "app"
        $0.provideFactory(Report.self) { (ctx: Context, args: (user: String, days: Int)) in
            Report(user: args.user, days: args.days, tenant: ctx[\.requestID])
        }
    }

    @Test("A factory builds from its arguments and the context it was resolved from")
    func arguments() throws {
        let tenant = app.child { $0.requestID = "tenant" }
        let makeReport = try tenant.require(Factory<(user: String, days: Int), Report>.self)
        let report = try makeReport((user: "ada", days: 7))
        #expect(report.user == "ada" && report.days == 7 && report.tenant == "tenant")
        #expect(try app.make(Report.self, (user: "bob", days: 1)).tenant == "app")
    }

    @Test("Different argument types are different factories; a missing one names the Factory type")
    func missing() {
        do throws(ContextError) {
            _ = try app.make(Report.self, "ada")
            Issue.record("made a report without a factory")
        } catch {
            #expect(error.code == .missingObject)
            #expect(error.message.contains("Factory<"), "\(error.message)")
            #expect(error.message.contains("Report"))
        }
    }

    @Test("make with arguments no factory takes names the argument types registered for the object")
    func missingNamesRegisteredArguments() {
        do throws(ContextError) {
            _ = try app.make(Report.self, ("ada", 7))
            Issue.record("made a report with unlabeled arguments")
        } catch {
            #expect(error.code == .missingObject)
            #expect(error.message.contains("takes arguments of type '(Swift.String, Swift.Int)'"), "\(error.message)")
            #expect(error.message.contains("'(user: Swift.String, days: Swift.Int)'"), "\(error.message)")
            #expect(error.message.contains("labels are part of its type"))
        }
        do throws(ContextError) {
            _ = try Context(name: "bare").make(Report.self, "ada")
            Issue.record("made a report without a factory")
        } catch {
            #expect(error.message.contains("Report' is registered on 'bare'"), "\(error.message)")
            #expect(error.message.contains("provideFactory"))
        }
    }

    @Test("make inside a provider's factory, with arguments no factory takes, names the registered argument types")
    func missingInsideAFactory() {
        let app = Context(name: "app") {
            $0.provideFactory(Report.self) { (_: Context, arguments: (user: String, days: Int)) in
                Report(user: arguments.user, days: arguments.days, tenant: "app")
            }
            $0.provide(String.self, lifetime: .transient) { context in
                try context.make(Report.self, ("ada", 7)).user
            }
        }
        do throws(ContextError) {
            _ = try app.require(String.self)
            Issue.record("made a report with unlabeled arguments")
        } catch {
            #expect(error.message.contains("'(user: Swift.String, days: Swift.Int)'"), "\(error.message)")
            #expect(!error.message.contains("child(providing:"), "\(error.message)")
        }
    }

    @Test("A factory that throws fails with factoryFailed, naming it")
    func failure() {
        let app = Context(name: "app") {
            $0.provideFactory(Report.self) { (_: Context, user: String) throws -> Report in
                throw TestFailure(reason: user)
            }
        }
        do throws(ContextError) {
            _ = try app.make(Report.self, "ada")
            Issue.record("no error")
        } catch {
            #expect(error.code == .factoryFailed)
            #expect(error.message.contains("Report (factory)"))
        }
    }

    @Test("A factory that calls itself while it builds is a cycle")
    func cycle() {
        let app = Context(name: "app") {
            $0.provideFactory(Loop.self) { (ctx: Context, depth: Int) in try ctx.make(Loop.self, depth + 1) }
        }
        do throws(ContextError) {
            _ = try app.make(Loop.self, 0)
            Issue.record("no error")
        } catch {
            #expect(error.code == .cycle)
        }
    }

    @Test("What a factory builds is shut down once, with the scope it was resolved from")
    func shutdown() async throws {
        let log = Collector<String>()
        let app = Context(name: "app") {
            $0.provideFactory(Upload.self) { (_: Context, name: String) in Upload(name: name, log: log) }
        }
        let request = app.scope(name: "request")
        let upload = try request.require(Factory<String, Upload>.self)
        _ = try upload("a")
        _ = try upload("b")
        try await request.shutdown()
        #expect(log.all == ["shutdown b", "shutdown a"])
        #expect(throws: ContextError.self) { try upload("c") }
        try await app.shutdown()
        #expect(log.count == 2)
    }

    @Test("Validation resolves the factory and the wiring description shows it")
    func validation() throws {
        try app.validate()
        let line = "object Factory<(user: String, days: Int), Report>: transient provider of Factory"
        #expect(app.wiringDescription.contains(line))
    }
}
