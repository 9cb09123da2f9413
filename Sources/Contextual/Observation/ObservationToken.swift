// `ObservationToken`: a subscription that ends when cancelled or released.

// MARK: - ObservationToken

/// A subscription: it lasts until ``cancel()`` or until the token is released.
///
/// ```swift
/// let token = library.observe(\.books) { books in print(books.count) }
/// token.cancel()  // or just drop the token
/// ```
///
/// A token holds what it observes weakly, so a forgotten token keeps nothing alive but its handler.
public final class ObservationToken: Sendable, Hashable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked.make(onCancel)
    }

    deinit {
        cancel()
    }

    /// Ends the subscription; later changes no longer call its handler. Calling it again does nothing.
    ///
    /// Once it returns, on any thread (the handler's own included, and while another thread cancels
    /// the same token), no later change calls the handler; a delivery already under way may finish.
    ///
    /// ```swift
    /// token.cancel()
    /// token.cancel()  // no effect
    /// ```
    public func cancel() {
        // The action is cleared only after it ran: a cancel() racing another (a handler cancelling its
        // own subscription while the thread that made it cancels it too) runs the action as well rather
        // than return while the other is still on its way to it, so that whichever returns first, the
        // subscription has ended and no later change calls the handler. Every action is idempotent
        // (ending a subscriber, removing a registry entry, stopping a tracker) and takes no lock of
        // this token, so running it twice, or cancelling again from inside it, is safe.
        guard let action = onCancel.withLock({ $0 }) else { return }
        action()
        onCancel.withLock { $0 = nil }
    }

    /// Whether ``cancel()`` has run to its end.
    ///
    /// ```swift
    /// token.isCancelled  // false until cancelled
    /// ```
    public var isCancelled: Bool { onCancel.withLock { $0 == nil } }

    /// Tokens are equal when they are the same token.
    ///
    /// ```swift
    /// var tokens: Set<ObservationToken> = [token]
    /// ```
    public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool { lhs === rhs }

    /// Hashes the token's identity.
    ///
    /// ```swift
    /// var tokens: Set<ObservationToken> = [token]
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
