// MARK: - Batching

/// Runs `body`, holding back the notifications of its writes until it returns; then each subscriber is
/// notified at most once, with the values as they are after the batch.
///
/// ```swift
/// batch {
///     library.books.append(first)
///     library.books.append(second)
///     library.title = "Updated"
/// }  // a subscriber of \.books is called once, with both books
/// ```
///
/// Batches nest; the outermost one delivers. Writes made by other tasks are not held back.
public func batch<Result>(_ body: () throws -> Result) rethrows -> Result {
    if ObservationBatch.current != nil { return try body() }
    let batch = ObservationBatch()
    let result = try ObservationBatch.$current.withValue(batch) { try body() }
    batch.deliver()
    return result
}

/// The notifications held back by a running ``batch(_:)``.
final class ObservationBatch: Sendable {
    @TaskLocal static var current: ObservationBatch?

    private let pending = Locked<[ObjectIdentifier: any Subscriber]>([:])
    private let order = Locked<[ObjectIdentifier]>([])

    /// Holds back one subscriber's notification; a subscriber is delivered at most once.
    func `defer`(_ subscriber: any Subscriber) {
        let id = ObjectIdentifier(subscriber)
        let isNew = pending.withLock { pending in
            guard pending[id] == nil else { return false }
            pending[id] = subscriber
            return true
        }
        if isNew { order.withLock { $0.append(id) } }
    }

    func deliver() {
        let ids = order.withLock { order in
            defer { order = [] }
            return order
        }
        let subscribers = pending.withLock { pending in
            defer { pending = [:] }
            return ids.compactMap { pending[$0] }
        }
        for subscriber in subscribers { subscriber.changed() }
    }
}
