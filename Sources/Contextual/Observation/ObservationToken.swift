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
    /// ```swift
    /// token.cancel()
    /// token.cancel()  // no effect
    /// ```
    public func cancel() {
        let action = onCancel.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }

    /// Whether ``cancel()`` has run (or the token ended by itself).
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
