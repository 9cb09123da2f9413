// `ObservationRegistry.batch`: holding notifications back until a group of writes is done.

// MARK: - Batching

extension ObservationRegistry {
    /// Runs `body`, holding back the notifications of its writes until it returns; then each subscriber is
    /// notified at most once, with the values as they are after the batch.
    ///
    /// ```swift
    /// ObservationRegistry.batch {
    ///     library.books.append(first)
    ///     library.books.append(second)
    ///     library.title = "Updated"
    /// }  // a subscriber of \.books is called once, with both books
    /// ```
    ///
    /// Batches nest; the outermost one delivers. Writes made by other tasks are not held back.
    ///
    /// - Parameter body: The writes to batch.
    /// - Returns: What `body` returned.
    public static func batch<Result>(_ body: () throws -> Result) rethrows -> Result {
        if ObservationBatch.current != nil { return try body() }
        let batch = ObservationBatch()
        let result = try ObservationBatch.$current.withValue(batch) { try body() }
        batch.deliver()
        return result
    }
}

/// The notifications held back by a running ``ObservationRegistry/batch(_:)``.
final class ObservationBatch: Sendable {
    @TaskLocal static var current: ObservationBatch?

    /// The subscribers held back, each once, in the order of their first change.
    private let pending = Locked<(order: [any Subscriber], seen: Set<ObjectIdentifier>)>.make(([], []))

    /// Holds back one subscriber's notification; a subscriber is delivered at most once.
    func `defer`(_ subscriber: any Subscriber) {
        pending.withLock { pending in
            if pending.seen.insert(ObjectIdentifier(subscriber)).inserted { pending.order.append(subscriber) }
        }
    }

    func deliver() {
        let subscribers = pending.withLock { pending in
            defer { pending = ([], []) }
            return pending.order
        }
        for subscriber in subscribers { subscriber.changed() }
    }
}
