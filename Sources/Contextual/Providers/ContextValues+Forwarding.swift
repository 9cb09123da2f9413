// Forwarding: one provider's object resolved under further types that it conforms to.

// MARK: - Forwarding

extension ContextValues {
    /// Registers further types under which the object provided under `primary` is resolved: one
    /// object, built once, shared by every type it is forwarded to.
    ///
    /// ```swift
    /// let app = Context(name: "app") {
    ///     $0.provide(PostgresStore.self, lifetime: .singleton) { _ in PostgresStore() }
    ///     $0.forward(UserStore.self, OrderStore.self, to: PostgresStore.self)
    /// }
    /// let users = try app.require(UserStore.self)
    /// let orders = try app.require(OrderStore.self)  // the same PostgresStore, built once
    /// ```
    ///
    /// Register the provider of `primary` first, in this closure or an ancestor's. A forwarding takes its
    /// lifetime: a singleton is shared by every type, a scoped object is one per scope whatever type the
    /// scope resolves it by, a transient one is built on each resolve. Forwarded to an object set as a
    /// value, each type holds that object. The object is recorded and shut down by the provider of
    /// `primary` alone, so it is shut down once. A forwarding is an ordinary entry of its type: a closer
    /// context can override it, ``Context/validate()`` resolves it, and ``Context/wiringDescription``
    /// shows it as `forwarded to` its primary type.
    ///
    /// An object that is not of a forwarded type makes the resolve fail with
    /// ``ContextError/Code/factoryFailed`` (``Context/validate()`` finds it at boot).
    ///
    /// - Parameters:
    ///   - types: The types the object is also resolved by (protocols it conforms to, say).
    ///   - primary: The type whose provider (or object) builds it.
    /// - Precondition: A provider of `primary`, or an object under it, is registered in these values.
    public mutating func forward<Primary: Sendable, each Forwarded: Sendable>(
        _ types: repeat (each Forwarded).Type,
        to primary: Primary.Type
    ) {
        repeat forwardOne(each types, to: primary)
    }

    private mutating func forwardOne<Forwarded: Sendable, Primary: Sendable>(
        _ type: Forwarded.Type,
        to primary: Primary.Type
    ) {
        let id = StorageID(object: primary)
        let raw = rawBox(id)
        precondition(
            raw != 0,
            "Contextual: forward(\(type), to: \(primary)) needs a provider of \(primary) registered before it, "
                + "in this closure or an ancestor's. Fix: call provide(\(primary).self, …) first."
        )
        if raw & 1 == 0 {
            let object = unboxValue(raw, as: primary)
            guard let forwarded = object as? Forwarded else {
                preconditionFailure(
                    "Contextual: "
                        + ForwardingMismatch(object: object, forwarded: type, primary: primary).description
                )
            }
            own.set(StorageID(object: type), to: ValueBox(forwarded, entry: type))
            return
        }
        let source = provider(raw, as: primary)
        let convert: @Sendable (Primary, Context) throws -> Forwarded = { object, context in
            guard let forwarded = object as? Forwarded else {
                let mismatch = ForwardingMismatch(object: object, forwarded: Forwarded.self, primary: Primary.self)
                throw mismatch.contextError(resolvingFrom: context)
            }
            return forwarded
        }
        // Synchronous reads work once an async primary was built, as they do for the primary itself.
        let sync: @Sendable (Context) throws -> Forwarded = { context in
            try convert(try source.resolve(from: context), context)
        }
        var async: (@Sendable (Context) async throws -> Forwarded)?
        if source.isAsync {
            async = { context in try convert(try await source.resolveAsync(from: context), context) }
        }
        let factory = ProviderBox<Forwarded>.Factory.forwarding(sync, async: async)
        own.set(
            StorageID(object: type),
            to: ProviderBox(
                entry: type,
                lifetime: source.lifetime,
                factory: factory,
                role: .forwarded(to: TypeMetadata.name(of: primary))
            )
        )
    }
}

// MARK: - ForwardingMismatch

/// An object that is not of the type it is forwarded to: one message, one fix.
struct ForwardingMismatch: CustomStringConvertible {
    let objectType: String
    let forwarded: String
    let primary: String

    init(object: Any, forwarded: Any.Type, primary: Any.Type) {
        self.objectType = TypeMetadata.name(of: Swift.type(of: object))
        self.forwarded = TypeMetadata.name(of: forwarded)
        self.primary = TypeMetadata.name(of: primary)
    }

    var description: String {
        "forward(\(forwarded).self, to: \(primary).self): the object provided under '\(primary)', of type "
            + "'\(objectType)', is not a '\(forwarded)', so it cannot be resolved as one. Fix: make '\(objectType)' "
            + "conform to '\(forwarded)', or remove '\(forwarded)' from the types forwarded to '\(primary)'."
    }

    /// The error of a resolve of the forwarded type from `context`.
    func contextError(resolvingFrom context: Context) -> ContextError {
        ContextError(
            code: .factoryFailed,
            requestedType: forwarded,
            searchedContexts: context.chainNames,
            message: description,
            resolutionPath: ResolutionFrame.currentLabels
        )
    }
}
