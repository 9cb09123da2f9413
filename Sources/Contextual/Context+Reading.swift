// MARK: - Reading values

extension Context {
    /// The value at `keyPath`: the nearest setting in this context's chain, or the key's default.
    ///
    /// ```swift
    /// let logger = request[\.logger]
    /// ```
    @inlinable
    public subscript<Value>(keyPath: KeyPath<ContextValues, Value>) -> Value {
        if let recorder = ObservationRecorder.active { return trackedRead(recorder) { $0[keyPath: keyPath] } }
        return withValues { $0[keyPath: keyPath] }
    }

    /// The value of `key`: the nearest setting in this context's chain, or the key's default.
    ///
    /// ```swift
    /// let verbosity = context[VerbosityKey.self]
    /// ```
    @inlinable
    public subscript<Key: ContextKey>(key: Key.Type) -> Key.Value {
        if let recorder = ObservationRecorder.active { return trackedRead(recorder) { $0[key] } }
        return withValues { $0[key] }
    }
}

// MARK: - Resolving objects

extension Context {
    /// The object provided under `type` by this context or an ancestor; stops the process when none is.
    ///
    /// Use this where a missing object is a wiring bug. The message names the type, every context
    /// searched, and how to provide it. Use ``require(_:)`` to get an error instead, or the optional form.
    ///
    /// ```swift
    /// let db: Database = request.resolve(Database.self)
    /// let url = request.resolve(Database.self).url
    /// ```
    ///
    /// Without a type to choose by, `let db = request.resolve(Database.self)` takes the optional form
    /// (this one is disfavoured, so that an optional context never picks the form that stops the
    /// process): annotate `Database` to fail hard.
    @inlinable
    @_disfavoredOverload
    public func resolve<T: Sendable>(_ type: T.Type) -> T {
        if let object = readObject(type) { return object }
        missingObject(type)
    }

    /// The object provided under `type` by this context or an ancestor, or `nil`.
    ///
    /// ```swift
    /// let cache: Cache? = request.resolve(Cache.self)
    /// ```
    @inlinable
    public func resolve<T: Sendable>(_ type: T.Type) -> T? {
        readObject(type)
    }

    /// The object provided under `type` by this context or an ancestor.
    ///
    /// ```swift
    /// do {
    ///     let db = try request.require(Database.self)
    /// } catch let error as ContextError where error.code == .missingObject {
    ///     print(error)  // names the type, the contexts searched and the fix
    /// }
    /// ```
    ///
    /// - Throws: ``ContextError`` with code ``ContextError/Code/missingObject`` when no context provides it.
    @inlinable
    public func require<T: Sendable>(_ type: T.Type) throws(ContextError) -> T {
        if let object = readObject(type) { return object }
        throw ContextError.missingObject(type, in: self)
    }

    @inlinable
    func readObject<T: Sendable>(_ type: T.Type) -> T? {
        if let recorder = ObservationRecorder.active { return trackedRead(recorder) { $0.object(type) } }
        return withValues { $0.object(type) }
    }

    @usableFromInline
    func missingObject<T>(_ type: T.Type) -> Never {
        fatalError(ContextError.missingObject(type, in: self).description)
    }
}
