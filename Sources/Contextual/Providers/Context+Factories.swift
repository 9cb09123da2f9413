// Building an object with a provided factory's arguments (`make`).

// MARK: - Making objects

extension Context {
    /// Builds `type` with the factory registered by ``ContextValues/provideFactory(_:_:)``, from
    /// `arguments` and this context.
    ///
    /// ```swift
    /// let report = try request.make(ReportBuilder.self, ("ada", 7))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type the factory builds.
    ///   - arguments: What the object needs besides what this context holds (a tuple for several).
    /// - Returns: A new object.
    /// - Throws: ``ContextError``: ``ContextError/Code/missingObject`` (naming the ``Factory`` type) when
    ///   no factory of `type` takes `Arguments`, else what ``Factory/callAsFunction(_:)`` throws.
    public func make<Object: Sendable, Arguments>(
        _ type: Object.Type,
        _ arguments: Arguments
    ) throws(ContextError) -> Object {
        try require(Factory<Arguments, Object>.self)(arguments)
    }
}
