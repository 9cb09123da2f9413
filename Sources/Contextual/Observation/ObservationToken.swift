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
    /// Where the subscription is in its ending. Invariant: `active` only ever becomes `ending`, and
    /// `ending` only `ended`, each under the lock; the action is taken out once, by the call that ends it.
    private enum State {
        case active(Action)
        /// The action is running on the thread with this identity (``ReadDomain/threadIdentity()``).
        case ending(thread: UInt)
        case ended
    }

    /// The closure that ends the subscription, in a struct: a closure returned through the lock's
    /// generic result would be converted there and back, two allocations per cancellation.
    private struct Action {
        let run: @Sendable () -> Void
    }

    private let state: Locked<State>

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.state = Locked.make(.active(Action(run: onCancel)))
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
        let thread = ReadDomain.threadIdentity()
        let action = state.withLock { state -> Action? in
            guard case .active(let action) = state else { return nil }
            state = .ending(thread: thread)
            return action
        }
        if let action {
            action.run()
            state.withLock { $0 = .ended }
            return
        }
        // Another thread is ending the subscription (a handler cancelling itself while the thread that
        // made it cancels it too): wait until it has, so that no later change calls the handler once this
        // call returns. The action is short and takes no lock a handler holds (handlers run outside the
        // library's locks). A call from inside the action, on its own thread (a stream finishing its
        // consumer), returns at once: the call around it finishes the ending.
        while state.withLock({ state -> Bool in
            if case .ending(let owner) = state { return owner != thread }
            return false
        }) {
            ReadDomain.yieldThread()
        }
    }

    /// Whether ``cancel()`` has run to its end.
    ///
    /// ```swift
    /// token.isCancelled  // false until cancelled
    /// ```
    public var isCancelled: Bool {
        state.withLock { state in
            if case .ended = state { return true }
            return false
        }
    }

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
