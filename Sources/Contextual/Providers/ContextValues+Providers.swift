// Registering providers: factories with a lifetime, under a type or a key path.

// MARK: - Registering providers

extension ContextValues {
    /// Registers a factory that builds the object provided under `type` when it is first resolved, and
    /// how long what it builds lives (see ``Lifetime``).
    ///
    /// ```swift
    /// let app = Context(name: "app") {
    ///     $0.config = Config(databaseURL: "postgres://localhost/app")
    ///     $0.provide(Database.self, lifetime: .singleton) { ctx in try Database(url: ctx[\.config].databaseURL) }
    /// }
    /// let db = try app.child().require(Database.self)  // built once, from `app`'s config
    /// ```
    ///
    /// The factory receives the context to resolve its own dependencies from: the registering context
    /// for a singleton, the scope for a scoped object, the asking context for a transient one. Inside
    /// it, resolve with `try ctx.require(…)`, so that a missing dependency or a cycle reaches the caller
    /// as an error. What it throws reaches the caller of ``Context/require(_:)-(T.Type)``; nothing is
    /// cached and the next resolve calls it again. It runs outside every lock, exactly once per object
    /// however many tasks resolve it at once.
    ///
    /// Resolving it inside the closure that registers it, before the context exists, is an error of any
    /// lifetime (``ContextError/Code/providerUnavailable``); a parent's providers can be read there.
    ///
    /// - Parameters:
    ///   - type: The type the object is resolved by.
    ///   - lifetime: How long what the factory builds lives (see ``Lifetime``).
    ///   - factory: Builds the object from the context given (the registrar for a singleton, the scope for
    ///     a scoped object, the asking context for a transient one).
    public mutating func provide<Object: Sendable>(
        _ type: Object.Type,
        lifetime: Lifetime,
        _ factory: @escaping @Sendable (Context) throws -> Object
    ) {
        own.set(
            StorageID(object: type),
            to: ProviderBox(entry: type, lifetime: lifetime, factory: .sync(factory))
        )
    }

    /// Registers an async factory, for an object that must be awaited to be built (a connection pool
    /// that connects, say). Resolve it with ``Context/prepare(_:)``; once built, synchronous
    /// resolves and `@Injected` return it too.
    ///
    /// ```swift
    /// $0.provide(ConnectionPool.self, lifetime: .singleton) { ctx async throws in
    ///     try await ConnectionPool.connect(to: ctx[\.config].databaseURL)
    /// }
    /// let pool = try await app.prepare(ConnectionPool.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type the object is resolved by.
    ///   - lifetime: How long what the factory builds lives (see ``Lifetime``).
    ///   - factory: Builds the object, awaiting what it needs; run once per lifetime, outside every lock.
    @_disfavoredOverload
    public mutating func provide<Object: Sendable>(
        _ type: Object.Type,
        lifetime: Lifetime,
        _ factory: @escaping @Sendable (Context) async throws -> Object
    ) {
        own.set(
            StorageID(object: type),
            to: ProviderBox(entry: type, lifetime: lifetime, factory: .async(factory))
        )
    }

    /// Registers a factory that builds the value at `keyPath` when it is first read, and how long it
    /// lives (see ``Lifetime``).
    ///
    /// ```swift
    /// $0.provide(\.httpClient, lifetime: .singleton) { ctx in HTTPClient(timeout: ctx[\.config].timeout) }
    /// let client = request[\.httpClient]
    /// ```
    ///
    /// A read through a key path cannot throw, so a failing factory stops the process with a message
    /// that names it; read with ``Context/require(_:)-(KeyPath<ContextValues,Value>)`` to get the error.
    ///
    /// Registering reads `keyPath`'s getter once, on empty values, to learn which key it reads: the key's
    /// `defaultValue` is computed then if it was not yet (the live one, in a test context too; it is kept
    /// for the process, as on any first read). What that default reads is not taken for the getter's.
    ///
    /// - Parameters:
    ///   - keyPath: The value the factory provides, as a property of ``ContextValues``.
    ///   - lifetime: How long what the factory builds lives (see ``Lifetime``).
    ///   - factory: Builds the value from the context given, as for an object provider.
    /// - Precondition: `keyPath`'s getter reads exactly one ``ContextKey`` and returns its value, as
    ///   the `EnvironmentKey` pattern's accessors do.
    public mutating func provide<Value: Sendable>(
        _ keyPath: WritableKeyPath<ContextValues, Value>,
        lifetime: Lifetime,
        _ factory: @escaping @Sendable (Context) throws -> Value
    ) {
        let probe = ContextValues(own: .empty, inherited: .empty)
        let read = ObservationRecorder.recordKeys { _ = probe[keyPath: keyPath] }
        precondition(
            read.count == 1 && read[0].valueType == Value.self && read[0].id.raw & 1 == 0,
            "Contextual: provide(_:lifetime:_:) needs a key path whose getter returns one ContextKey's value "
                + "unchanged, like `get { self[MyKey.self] }`; the getter of \(keyPath) read "
                + "\(read.map { "\($0.entry)" }). Fix: register the provider on the key's own accessor."
        )
        own.set(
            read[0].id,
            to: ProviderBox(entry: read[0].entry, lifetime: lifetime, factory: .sync(factory))
        )
    }

    // MARK: - Reading a provider

    /// The value a provider stored under a key builds for the reading context. A read through a key path
    /// cannot throw: a failure stops the process with its message, unless a `require` is waiting for it.
    @usableFromInline
    func providedValue<Key: ContextKey>(_ raw: UInt, for key: Key.Type) -> Key.Value {
        // The read of the old value that an assignment through a key path makes builds nothing: it gets the
        // value assigned (see `assign(_:at:)`, which marks the values it assigns to).
        if let assigned = assignedValue(for: key) { return assigned }
        do {
            return try resolveProvider(raw, as: Key.Value.self)
        } catch {
            FailureSink.recordOrStop(error)
            // `require` throws the error and discards this value.
            return DefaultValueStore.shared.value(for: key)
        }
    }

    /// The object a provider builds for the reading context; a failure stops the process with its
    /// message, unless a `require` is waiting for it. Specialized where the object is read, with the
    /// provider's resolve.
    @inlinable
    func providedObject<Object: Sendable>(
        _ raw: UInt,
        as type: Object.Type,
        endedScopeGivesNil: Bool = false
    ) -> Object? {
        do {
            return try resolveProvider(raw, as: type)
        } catch {
            if endedScopeGivesNil && error.code == .scopeEnded { return nil }
            FailureSink.recordOrStop(error)
            return nil
        }
    }

    /// The built singleton of the provider at the tagged address `raw`, if it builds one and built it.
    @inlinable
    func builtSingleton<Value: Sendable>(_ raw: UInt, as type: Value.Type) -> Value? {
        // Safe: as in `provider(_:as:)`; the box is kept alive by the table these values read.
        ReferenceWord.withInstance(raw & ~1, as: ProviderBox<Value>.self) { $0.builtSingleton }
    }

    /// Whether what `id` gives now is what it will give for as long as these values are read: a value,
    /// nothing (the default), or a singleton already built.
    @usableFromInline
    func isStable(_ id: StorageID) -> Bool {
        let raw = rawBox(id)
        if raw & 1 == 0 { return true }
        let provider = ReferenceWord.instance(raw & ~1, as: AnyObject.self)
        guard let provider = provider as? any AnyProviderBox else { return false }
        return provider.lifetime == .singleton && provider.isBuilt
    }

    @inlinable
    func resolveProvider<Value: Sendable>(_ raw: UInt, as type: Value.Type) throws(ContextError) -> Value {
        let provider = self.provider(raw, as: type)
        guard let origin else { throw ContextError.providerUnavailable(provider.label, asker: nil) }
        return try provider.resolve(from: origin)
    }

    /// The provider at the tagged address `raw`, retained.
    @inlinable
    func provider<Value: Sendable>(_ raw: UInt, as type: Value.Type) -> ProviderBox<Value> {
        // Safe: an entry tagged as a provider under an identity derived from `Value` (its object type, or
        // a key whose value type was checked at registration) is a `ProviderBox<Value>`.
        ReferenceWord.instance(raw & ~1, as: ProviderBox<Value>.self)
    }

    /// What is stored under the object identity `id`: nothing, an object, or a provider (retained).
    func objectEntry<Object: Sendable>(_ id: StorageID, as type: Object.Type) -> ObjectEntry<Object> {
        let raw = rawBox(id)
        if let recorder = ObservationRecorder.active { recorder.appendKey(id, raw, entry: type, valueType: type) }
        if raw == 0 { return .missing }
        if raw & 1 == 0 { return .object(unboxValue(raw, as: type)) }
        return .provider(provider(raw, as: type))
    }
}

// MARK: - ObjectEntry

/// What a context holds under an object type.
enum ObjectEntry<Object: Sendable> {
    case missing
    case object(Object)
    case provider(ProviderBox<Object>)
}
