// Applying a configuration source to a context: one update, all of it or nothing.
// Architecture: ARCHITECTURE.md, "Configuration mappings".

// MARK: - Updating from a configuration source

extension Context {
    /// Sets every value `mapping` reads from `source`, in one update, or none: a reloaded configuration.
    ///
    /// Every read runs before the update, and the mapping's rules are checked on the values with every
    /// mapped value set; when one fails, nothing changes and the error lists every read that failed (or,
    /// when all reads succeeded, every rule broken), so the context keeps its last good configuration.
    /// When all succeed, every mapped value changes in one update, and observers of what changed are
    /// notified once. A context below this one that sets a value itself keeps its own: a request scope
    /// made with ``ConfigurationMapping/pinMappedValues(in:)`` keeps the configuration it started with.
    ///
    /// ```swift
    /// do {
    ///     try app.update(from: snapshot, with: mapping)
    /// } catch {
    ///     logger.error("configuration not applied: \(error.message)")  // the last good one stays
    /// }
    /// ```
    ///
    /// - Throws: ``ContextError`` (``ContextError/Code/invalidConfiguration``) listing every read that
    ///   failed, with its configuration key and error, or, when every read succeeded, every rule broken;
    ///   nothing was set.
    /// - Complexity: That of ``update(_:)``, plus the reads and rules of the mapping.
    public func update<Source>(from source: Source, with mapping: ConfigurationMapping<Source>) throws(ContextError) {
        let configuration = try mapping.read(source, searched: chainNames)
        do {
            try update { values in try configuration.apply(to: &values) }
        } catch let error as ContextError {
            throw error
        } catch {
            // `apply` throws only `ContextError`.
            preconditionFailure("unexpected error \(error)")
        }
    }
}
