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
        let factory: Factory<Arguments, Object>
        do throws(ContextError) {
            factory = try require(Factory<Arguments, Object>.self)
        } catch
            where error.code == .missingObject
            && error.requestedType == TypeMetadata.qualifiedName(of: Factory<Arguments, Object>.self)
        {
            throw ContextError.missingFactory(
                of: Object.self,
                taking: Arguments.self,
                registered: registeredFactoryArguments(of: Object.self),
                in: self,
                path: error.resolutionPath
            )
        }
        return try factory(arguments)
    }

    /// The argument types of the factories of `object` this context sees, as Swift spells them.
    func registeredFactoryArguments<Object>(of object: Object.Type) -> [String] {
        visibleProviders().compactMap { provider in
            guard let factory = provider.providedType as? any FactoryType.Type, factory.objectType == object else {
                return nil
            }
            return TypeMetadata.qualifiedName(of: factory.argumentsType)
        }
    }
}
