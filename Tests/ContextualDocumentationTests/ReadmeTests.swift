import Contextual
import Testing

// Every ```swift block of README.md appears verbatim in this file (checked by .ci/check-docs.py); the
// tests below assert what the README's comments claim.

// MARK: - A short tour: keys

enum TraceIDKey: ContextKey {
    static var defaultValue: String { "none" }
}

extension ContextValues {
    var traceID: String {
        get { self[TraceIDKey.self] }
        set { self[TraceIDKey.self] = newValue }
    }
}

// MARK: - A short tour: services

final class Mailer: Sendable {
    let sender: String
    init(sender: String) { self.sender = sender }
}

struct SignUp {
    @Injected(\.traceID) var traceID
    @Injected(Mailer.self) var mailer

    func welcome(_ email: String) -> String {
        "[\(traceID)] \(mailer.sender) welcomes \(email)"
    }
}

// MARK: - A short tour: a provider with a scope

final class UnitOfWork: ScopeShutdown {
    let traceID: String
    init(traceID: String) { self.traceID = traceID }
    func shutdown() async throws {}  // commit or roll back
}

/// A unit of work that records its shutdown, to check the README's claim that the scope shuts it down.
private final class RecordedUnitOfWork: ScopeShutdown {
    let log: Lines
    init(log: Lines) { self.log = log }
    func shutdown() async throws { log.append("shut down") }
}

@Suite("The README's tour")
struct ReadmeTests {
    @Test("An app and a request: the service reads the request's trace ID and the app's mailer")
    func appAndRequest() {
        let app = Context(name: "app") { $0.provide(Mailer(sender: "hello@example.com")) }
        let request = app.child(\.traceID, "t-42", name: "request t-42")
        let signUp = request.run { SignUp() }

        let line = signUp.welcome("ada@example.com")  // "[t-42] hello@example.com welcomes ada@example.com"
        let appTrace = app[\.traceID]  // "none": the override stays in the request's subtree

        #expect(line == "[t-42] hello@example.com welcomes ada@example.com")
        #expect(appTrace == "none")
        #expect(signUp.$traceID.context === request)
        #expect(request.name == "request t-42")
    }

    @Test("A scoped provider builds one unit of work per scope, which the scope shuts down")
    func providerWithScope() async throws {
        let server = Context(name: "server") {
            $0.provide(UnitOfWork.self, lifetime: .scoped) { request in UnitOfWork(traceID: request[\.traceID]) }
        }
        try await server.prepare()  // resolves every provider now; reports every problem at once

        let shared = try await server.withScope(name: "request 7") {
            $0.traceID = "t-7"
        } body: { request in
            let work = try request.require(UnitOfWork.self)  // built for this request, from its scope
            let again = try request.require(UnitOfWork.self)  // the same one
            return work === again && work.traceID == "t-7"
        }  // true; the unit of work was shut down when the scope ended

        #expect(shared)
        let first = try await server.withScope(name: "a") { try $0.require(UnitOfWork.self) }
        let second = try await server.withScope(name: "b") { try $0.require(UnitOfWork.self) }
        #expect(first !== second)

        let log = Lines()
        let recorded = Context(name: "recorded") {
            $0.provide(RecordedUnitOfWork.self, lifetime: .scoped) { _ in RecordedUnitOfWork(log: log) }
        }
        _ = try await recorded.withScope(name: "request") { try $0.require(RecordedUnitOfWork.self) }
        #expect(log.all == ["shut down"])
    }

    @Test("validate reports a provider's failure at boot")
    func validateReports() async {
        let server = Context(name: "server") {
            $0.provide(UnitOfWork.self, lifetime: .scoped) { _ in throw SampleFailure(reason: "no database") }
        }
        let error = await #expect(throws: ContextError.self) { try await server.prepare() }
        #expect(error?.code == .validationFailed)
    }
}
