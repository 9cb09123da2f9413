// Observing a model: `observe` and `changes(of:)` on the properties of an `ObservableModel`.

// MARK: - Observing a model

extension ObservableModel {
    /// Calls `handler` with the new value at `keyPath` after every change of it (the observed
    /// properties it reads), until the token is cancelled or released.
    ///
    /// ```swift
    /// let token = library.observe(\.books) { books in print(books.count) }
    /// ```
    ///
    /// The handler runs after the change is stored, synchronously on the writing thread, outside every
    /// lock; it may read, write, subscribe or cancel. Equal writes don't call it. The token holds the
    /// model weakly. What is watched is what `keyPath` read when the subscription was made.
    @inlinable
    public func observe<Value: Sendable>(
        _ keyPath: KeyPath<Self, Value> & Sendable,
        _ handler: @escaping @Sendable (Value) -> Void
    ) -> ObservationToken {
        subscribeToValue(
            of: { [weak self] in self?[keyPath: keyPath] },
            handler: handler,
            specializedChange: { $0.changedNow() }
        ).token
    }

    /// The value at `keyPath` now, then after every change, as an `AsyncSequence`; a slow consumer gets
    /// the newest value. It finishes when the model is released; ending the consuming task ends the
    /// subscription.
    ///
    /// ```swift
    /// for await books in library.changes(of: \.books) {
    ///     print(books.count)
    /// }
    /// ```
    @inlinable
    public func changes<Value: Sendable>(of keyPath: KeyPath<Self, Value> & Sendable) -> AsyncStream<Value> {
        streamOfValue(of: { [weak self] in self?[keyPath: keyPath] })
    }
}
