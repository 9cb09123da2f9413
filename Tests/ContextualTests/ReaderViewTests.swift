import Contextual
import Testing

extension ContextValues {
    /// All of a context's values, as a read gets them: lets a test keep them past the read.
    fileprivate var everything: ContextValues { self }
}

/// A read in a chain with providers lends the context's values to the key's getter with the reading
/// context named as their reader, without copying them: values that a getter hands out must still be
/// whole, and still name that reader, once the read is over.
@Suite("Values lent to a read")
struct ReaderViewTests {
    private func app() -> Context {
        Context(name: "app") {
            $0.provide(Connection.self, lifetime: .scoped) { scope in Connection(url: scope[\.requestID]) }
        }
    }

    @Test("Values a getter returns from context[keyPath] stay valid after the read and build for its context")
    func valuesFromASubscriptRead() throws {
        let request = app().scope(name: "request") { $0.requestID = "r1" }
        let values = request[\.everything]
        #expect(values[RequestIDKey.self] == "r1")
        let connection = try #require(values.object(Connection.self))
        #expect(connection.url == "r1")
        // The request's own scoped object: the values named the request as their reader.
        #expect(connection === request.resolve(Connection.self))
    }

    @Test("Values a getter returns keep the context that read them alive, as their reader")
    func valuesKeepTheirReader() throws {
        weak var weakRequest: Context?
        let values: ContextValues
        do {
            let request = app().scope(name: "request") { $0.requestID = "r3" }
            weakRequest = request
            values = request[\.everything]
        }
        // Only the values hold the request now: they hold it as their reader, as a copy of values does.
        #expect(weakRequest != nil)
        #expect(values.object(Connection.self)?.url == "r3")
    }

    @Test("Values an @Injected property reads stay valid after the read and build for its context")
    func valuesFromAnInjectedRead() throws {
        struct Handler {
            @Injected(\.everything) var values
        }
        let request = app().scope(name: "request") { $0.requestID = "r2" }
        let handler = request.run { Handler() }
        var kept: [ContextValues] = []
        for _ in 0..<3 { kept.append(handler.values) }  // a first read, then reads that keep the value
        for values in kept {
            #expect(values[RequestIDKey.self] == "r2")
            #expect(values.object(Connection.self) === request.resolve(Connection.self))
        }
    }
}
