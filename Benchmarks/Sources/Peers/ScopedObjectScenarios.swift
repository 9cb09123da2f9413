import Contextual

// MARK: - A scope with several scoped objects (the per-object target)

/// A scope with one override and `count` scoped objects of distinct types built in it, then one value
/// read: target b's request with more objects, as a request of a server with repositories makes them.
/// Between `count` = 1 and 8, the difference over 7 is what each object past a scope's first costs.
public func scopedObjectsGroup(_ count: Int) -> String {
    "scope { } + n scoped objects + 1 read, n = \(count)"
}

/// The sizes counted: a scope's first object, and eight.
public let scopedObjectsCounts = [1, 8]

/// The scenarios of ``scopedObjectsGroup(_:)``: not among ``everyScenario`` (package-benchmark times a
/// request with one scoped object already), counted by `contextual-count` alone.
public let scopedObjectsScenarios: [Scenario] = scopedObjectsCounts.map { count in
    Scenario(scopedObjectsGroup(count), .contextual) { iterations in
        let app = ScopedObjectsFixture.app
        let builds = Array(ScopedObjectsFixture.builds.prefix(count))
        for index in 0..<iterations {
            let request = app.scope { $0.requestID = RequestID(index) }
            for build in builds { build(request) }
            consume(request[\.requestID])
        }
    }
}

// MARK: - The objects

/// An app that provides eight scoped objects of distinct types, each made from the request's ID.
enum ScopedObjectsFixture {
    static let app = Context(name: "app") {
        $0.requestID = RequestID(0)
        $0.provide(OrderRepository.self, lifetime: .scoped) { OrderRepository(requestID: $0[\.requestID]) }
        $0.provide(CustomerRepository.self, lifetime: .scoped) { CustomerRepository(requestID: $0[\.requestID]) }
        $0.provide(InvoiceRepository.self, lifetime: .scoped) { InvoiceRepository(requestID: $0[\.requestID]) }
        $0.provide(AuditTrail.self, lifetime: .scoped) { AuditTrail(requestID: $0[\.requestID]) }
        $0.provide(RequestCache.self, lifetime: .scoped) { RequestCache(requestID: $0[\.requestID]) }
        $0.provide(PermissionCheck.self, lifetime: .scoped) { PermissionCheck(requestID: $0[\.requestID]) }
        $0.provide(EventOutbox.self, lifetime: .scoped) { EventOutbox(requestID: $0[\.requestID]) }
        $0.provide(SearchQuery.self, lifetime: .scoped) { SearchQuery(requestID: $0[\.requestID]) }
    }

    /// A resolve of each object, in the order they are provided, as a handler's code spells it.
    static let builds: [@Sendable (Context) -> Void] = [
        { consume($0.resolve(OrderRepository.self) as OrderRepository) },
        { consume($0.resolve(CustomerRepository.self) as CustomerRepository) },
        { consume($0.resolve(InvoiceRepository.self) as InvoiceRepository) },
        { consume($0.resolve(AuditTrail.self) as AuditTrail) },
        { consume($0.resolve(RequestCache.self) as RequestCache) },
        { consume($0.resolve(PermissionCheck.self) as PermissionCheck) },
        { consume($0.resolve(EventOutbox.self) as EventOutbox) },
        { consume($0.resolve(SearchQuery.self) as SearchQuery) },
    ]
}

/// A request's orders, made per request.
final class OrderRepository: Sendable {
    let requestID: RequestID
    init(requestID: RequestID) { self.requestID = requestID }
}

/// A request's customers, made per request.
final class CustomerRepository: Sendable {
    let requestID: RequestID
    init(requestID: RequestID) { self.requestID = requestID }
}

/// A request's invoices, made per request.
final class InvoiceRepository: Sendable {
    let requestID: RequestID
    init(requestID: RequestID) { self.requestID = requestID }
}

/// What a request did, made per request.
final class AuditTrail: Sendable {
    let requestID: RequestID
    init(requestID: RequestID) { self.requestID = requestID }
}

/// What a request read once, made per request.
final class RequestCache: Sendable {
    let requestID: RequestID
    init(requestID: RequestID) { self.requestID = requestID }
}

/// What a request may do, made per request.
final class PermissionCheck: Sendable {
    let requestID: RequestID
    init(requestID: RequestID) { self.requestID = requestID }
}

/// What a request sends when it ends, made per request.
final class EventOutbox: Sendable {
    let requestID: RequestID
    init(requestID: RequestID) { self.requestID = requestID }
}

/// A request's search, made per request.
final class SearchQuery: Sendable {
    let requestID: RequestID
    init(requestID: RequestID) { self.requestID = requestID }
}
