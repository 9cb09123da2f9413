// `ContextValues`: the values of a context, read and set through one computed property per key.

// MARK: - ContextValues

/// The values a ``Context`` holds: each key's value and each object provided by type.
///
/// Extend `ContextValues` with a computed property per ``ContextKey``, exactly as with SwiftUI's
/// `EnvironmentValues`, and set values in a context's configuring closure:
///
/// ```swift
/// extension ContextValues {
///     var requestID: String {
///         get { self[RequestIDKey.self] }
///         set { self[RequestIDKey.self] = newValue }
///     }
/// }
///
/// let request = app.child { $0.requestID = "req-1" }
/// ```
///
/// Inside a configuring closure, reads see what the parent holds plus what the closure has set so far.
public struct ContextValues: Sendable {
    /// What this context sets itself.
    @usableFromInline
    var own: FrozenTable
    /// Everything the context's ancestors hold, flattened into one table.
    @usableFromInline
    var inherited: FrozenTable
    /// The context that reads these values, which a provider found here builds for (e.g. the scope of a
    /// scoped object); set only on copies handed to a read or a configuring closure, never on stored
    /// values (so that a context never holds itself).
    @usableFromInline
    var origin: Context?

    // The memberwise initializer is the implicit one: an explicit one left a copy of the whole value,
    // with a retain and a release of each reference, in every context made.

    /// Whether a provider is registered in these values, own or inherited.
    @usableFromInline
    var hasProviders: Bool { own.hasProviders || inherited.hasProviders }

    /// Whether these are a test context's values (see ``Context/testing(name:onUnimplementedRead:_:)``):
    /// their unset keys read the keys' test values. Asked only when a read finds no entry.
    @inlinable
    var isTesting: Bool { (own.summary | inherited.summary) & 4 != 0 }

    /// Whether a read that finds no entry asks more than the key's default: in a test context's values
    /// (the key's test value), or in values being assigned through a key path (the value assigned, see
    /// ``assign(_:at:)``).
    @inlinable
    var isTestingOrAssigning: Bool { (own.summary | inherited.summary) & 12 != 0 }

    /// These values as `context` reads them: providers found in them build for `context`.
    @inlinable
    func read(by context: Context) -> ContextValues {
        ContextValues(own: own, inherited: inherited, readBy: context)
    }

    // MARK: - Keys

    /// The value of `key`: the nearest setting in the chain, or the key's default value.
    ///
    /// ```swift
    /// let verbosity = values[VerbosityKey.self]
    /// values[VerbosityKey.self] = 2
    /// ```
    public subscript<Key: ContextKey>(key: Key.Type) -> Key.Value {
        @inlinable
        get {
            let id = StorageID(key: key)
            let raw = rawBox(id)
            if let recorder = ObservationRecorder.active {
                recorder.appendKey(id, raw, entry: key, valueType: Key.Value.self)
            }
            if raw & 1 == 0 {
                if raw != 0 { return unboxValue(raw, as: Key.Value.self) }
                if !isTestingOrAssigning { return DefaultValueStore.shared.value(for: key) }
                return testValue(for: key)
            }
            if let built = builtSingleton(raw, as: Key.Value.self) { return built }
            return providedValue(raw, for: key)
        }
        @inlinable
        set {
            // The first write of an assignment through a key path: its value is no longer lent to reads.
            if own.isAssigning { PendingWrite.disarm() }
            let id = StorageID(key: key)
            let box = ValueBox(newValue, entry: key)
            // The first value set (a request's override, usually) makes a one-entry table in place.
            if own.count == 0 { own = FrozenTable(id, value: box) } else { own.set(id, to: box) }
        }
    }

    /// Removes this context's own value for `key`, so that it reads as inherited (or as the default)
    /// again. Useful in ``Context/update(_:)``.
    ///
    /// ```swift
    /// app.update { $0.removeValue(for: VerbosityKey.self) }
    /// ```
    public mutating func removeValue<Key: ContextKey>(for key: Key.Type) {
        own.remove(StorageID(key: key))
    }

    /// The box of the nearest setting of `id`, retained; not for the read path.
    func box(_ id: StorageID) -> (any ContextBox)? {
        own.box(id) ?? inherited.box(id)
    }

    /// The address of the box of the nearest setting of `id`, or 0.
    @inlinable
    func rawBox(_ id: StorageID) -> UInt {
        let raw = own.rawBox(id)
        if raw != 0 { return raw }
        return inherited.rawBox(id)
    }

    // MARK: - Objects

    /// Stores `object` under its own type (or under `type`, e.g. a protocol it conforms to), for
    /// ``Context/resolve(_:)->T`` and `@Injected(T.self)`.
    ///
    /// ```swift
    /// let app = Context { $0.provide(Database(url: url)) }
    /// let store = Context { $0.provide(PostgresStore(), as: (any Store).self) }
    /// ```
    public mutating func provide<Object: Sendable>(_ object: Object, as type: Object.Type = Object.self) {
        own.set(StorageID(object: type), to: ValueBox(object))
    }

    /// Removes the object this context itself provides under `type`, so that an ancestor's (if any) is
    /// seen again.
    ///
    /// ```swift
    /// request.update { $0.removeObject(for: Cache.self) }
    /// ```
    ///
    /// - Parameter type: The type the object is provided under.
    public mutating func removeObject<Object: Sendable>(for type: Object.Type) {
        own.remove(StorageID(object: type))
    }

    /// The object provided under `type` by this context or an ancestor, or `nil`.
    ///
    /// ```swift
    /// let db = values.object(Database.self)
    /// ```
    @inlinable
    public func object<Object: Sendable>(_ type: Object.Type) -> Object? {
        object(type, endedScopeGivesNil: false)
    }

    /// ``object(_:)``, or nil when a scope that was shut down would own the object (the optional forms).
    @inlinable
    func object<Object: Sendable>(_ type: Object.Type, endedScopeGivesNil: Bool) -> Object? {
        let id = StorageID(object: type)
        let raw = rawBox(id)
        if let recorder = ObservationRecorder.active {
            recorder.appendKey(id, raw, entry: type, valueType: Object.self)
        }
        if raw & 1 == 0 { return raw == 0 ? nil : unboxValue(raw, as: Object.self) }
        if let built = builtSingleton(raw, as: Object.self) { return built }
        return providedObject(raw, as: type, endedScopeGivesNil: endedScopeGivesNil)
    }
}

// MARK: - Values as a context reads them

extension ContextValues {
    /// Values made of `own` and `inherited`, as `origin` reads them (see ``read(by:)``). In an extension,
    /// so that the implicit memberwise initializer stays.
    @inlinable
    init(own: FrozenTable, inherited: FrozenTable, readBy origin: Context) {
        self.own = own
        self.inherited = inherited
        self.origin = origin
    }
}
