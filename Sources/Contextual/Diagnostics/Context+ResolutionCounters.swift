// Turning resolution counters on for a context's tree.

// MARK: - Resolution counters

extension Context {
    /// Starts counting, in this context's whole tree, how many times each provider is resolved and
    /// built, and returns the tree's counters (the same ones each time); off until called.
    ///
    /// ```swift
    /// let counters = app.countResolutions()
    /// let request = app.scope(name: "request")
    /// _ = try request.require(RequestHandler.self)
    /// #expect(counters.count(of: RequestHandler.self).built == 1)
    /// #expect(counters.totalBuilt == 2)  // the handler and its database, nothing else
    /// ```
    ///
    /// Read them at shutdown or at any time; ``ResolutionCounters/stop()`` stops counting. While no
    /// counters were ever turned on in a tree, a build checks that with one load; warm reads never look.
    ///
    /// - Returns: The tree's counters, counting.
    public func countResolutions() -> ResolutionCounters {
        let counters = tree.madeInstruments.counters
        counters.start()
        return counters
    }
}
