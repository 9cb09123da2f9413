// A ContextError as a server answers it: the status, and a public message that names nothing of the wiring.

import Testing

@testable import Contextual

@Suite("A ContextError as an HTTP answer")
struct ContextErrorHTTPTests {
    private final class Ledger: Sendable {}

    @Test("A missing object is a 500 whose public message names neither the type nor the contexts")
    func missingObjectIsAnInternalError() throws {
        let request = Context(name: "app").child(name: "request r-42")
        let error = try #require(throws: ContextError.self) { try request.require(Ledger.self) }
        #expect(error.httpStatusCode == 500)
        let message = error.publicMessage(requestID: "r-42")
        #expect(message == "The server could not complete the request (request ID: r-42).")
        #expect(!message.contains("Ledger"))
        #expect(!message.contains("app"))
        #expect(error.message.contains("Ledger"), "the full message, for the log, still names the type")
    }

    @Test("A failing factory's error does not reach the public message")
    func factoryErrorStaysInTheLog() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "password=hunter2" } }
        let app = Context(name: "app") { $0.provide(Ledger.self, lifetime: .singleton) { _ in throw Refused() } }
        let error = try #require(throws: ContextError.self) { try app.require(Ledger.self) }
        #expect(error.httpStatusCode == 500)
        #expect(!error.publicMessage(requestID: nil).contains("hunter2"))
        #expect(error.publicMessage(requestID: nil) == "The server could not complete the request.")
    }

    @Test("An ended scope is a 503 that asks the client to try again")
    func endedScopeIsUnavailable() async throws {
        let app = Context(name: "app") { $0.provide(Ledger.self, lifetime: .scoped) { _ in Ledger() } }
        let request = app.scope(name: "request")
        try await request.shutdown()
        let error = try #require(throws: ContextError.self) { try request.require(Ledger.self) }
        #expect(error.code == .scopeEnded)
        #expect(error.httpStatusCode == 503)
        #expect(
            error.publicMessage(requestID: "r-1")
                == "The server cannot complete the request now; try again later (request ID: r-1)."
        )
    }

    @Test("Each code answers 503 when the server is going away or busy, 500 otherwise")
    func statusOfEachCode() {
        let unavailable: [ContextError.Code] = [.scopeEnded, .cancelled, .buildTimedOut]
        let internalErrors: [ContextError.Code] = [
            .missingObject, .factoryFailed, .cycle, .captiveDependency, .noScope, .asyncProvider,
            .providerUnavailable, .validationFailed, .shutdownFailed, .notADirectChild, .alreadyAMember,
            .duplicateContribution, .defaultCycle, .incompatibleBootReport, .bootReportFileFailed,
            .invalidConfiguration,
        ]
        for code in unavailable + internalErrors {
            let error = ContextError(code: code, requestedType: "Secret", searchedContexts: ["app"], message: "Secret")
            #expect(error.httpStatusCode == (unavailable.contains(code) ? 503 : 500), "\(code)")
            #expect(!error.publicMessage(requestID: "x").contains("Secret"), "\(code)")
        }
    }
}
