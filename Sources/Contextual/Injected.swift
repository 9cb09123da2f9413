import Synchronization

// MARK: - Injected

/// A property that reads a value from a context on every access, by key path or by type.
///
/// ```swift
/// struct UserService {
///     @Injected(\.logger) var logger                  // by key path
///     @Injected(Database.self) var database           // by type; stops the process if none is provided
///     @Injected(Cache.self) var cache: Cache?         // by type; nil if none is provided
/// }
///
/// let service = request.run { UserService() }  // binds to `request` for its whole life
/// ```
///
/// **Which context it reads from.** An `Injected` binds, when it is created, to ``Context/current`` (or
/// to the context passed as `from:`), and reads from that context for its whole life, whichever task or
/// thread later accesses it. It never consults the task-local context at access time, so a service made
/// for one request can't read another request's values.
///
/// **When it reads.** On every access: a value replaced in the context later is what the next access
/// sees. A warm read takes no lock and does not allocate: it returns what the property read last, for as
/// long as nothing in the context's tree has changed since (a transient or scoped provider is read anew
/// each time).
///
/// `Injected` is `Sendable` when its value is. A `var` of a `Sendable` class must be immutable, so in a
/// `final class` that is `Sendable` hold it as a constant instead: `let logger = Injected(\.logger)` and
/// read `logger()`.
@propertyWrapper
public struct Injected<Value: Sendable>: Sendable {
    /// The context this property reads from.
    ///
    /// ```swift
    /// service.$logger.context === request  // true
    /// ```
    public let context: Context

    /// Computes the value from a context's values; nil only when a required object is missing.
    @usableFromInline
    let evaluate: @Sendable (ContextValues) -> Value?
    @usableFromInline
    let memo = InjectedMemo<Value>()

    /// Reads the value at `keyPath`, from `context` (by default the current context at creation).
    ///
    /// ```swift
    /// @Injected(\.logger) var logger
    /// @Injected(\.logger, from: app) var appLogger
    /// ```
    public init(_ keyPath: KeyPath<ContextValues, Value> & Sendable, from context: Context = .current) {
        self.context = context
        self.evaluate = { $0[keyPath: keyPath] }
    }

    /// Reads the object provided under `type`; an access stops the process when no context provides it,
    /// with a message naming the type and the contexts searched.
    ///
    /// ```swift
    /// @Injected(Database.self) var database
    /// ```
    public init(_ type: Value.Type, from context: Context = .current) {
        self.context = context
        self.evaluate = { $0.object(type) }
    }

    /// Reads the object provided under `type`, or `nil` when no context provides it.
    ///
    /// ```swift
    /// @Injected(Cache.self) var cache: Cache?
    /// ```
    public init<Object: Sendable>(_ type: Object.Type, from context: Context = .current)
    where Value == Object? {
        self.context = context
        self.evaluate = { .some($0.object(type)) }
    }

    /// The value, read from ``context`` now.
    ///
    /// ```swift
    /// logger.info("hello")
    /// ```
    @inlinable
    public var wrappedValue: Value { read() }

    @inlinable
    func read() -> Value {
        if ObservationRecorder.active == nil && context.readsInitial, let value = memo.initialValue {
            return value
        }
        return readAfterChange()
    }

    /// A read once something in the tree changed: what was kept from the published state, if still
    /// current. Specialized where it is used, but never inlined, so that the loop around a warm read stays
    /// as small as the warm read itself (a larger one cost the two-thread benchmark a fifth of its
    /// throughput in some runs).
    @inlinable @inline(never)
    func readAfterChange() -> Value {
        if ObservationRecorder.active == nil && !context.readsInitial, let value = memo.publishedValue(in: context) {
            return value
        }
        return readSlowly()
    }

    @usableFromInline
    func readSlowly() -> Value {
        if let recorder = ObservationRecorder.active {
            if let value = context.trackedRead(recorder, evaluate) { return value }
        } else if context.readsInitial && !context.chainHasProviders {
            // The initial values never change, so what they give is valid for as long as they are read.
            if let value = evaluate(context.initial) { return memo.storeInitial(value) }
        } else if context.readsInitial && !memo.readsUnstableEntries.load(ordering: .relaxed) {
            // The same, as long as every entry read is stable: a value, or a singleton already built
            // (a transient provider builds anew on every read, a scoped object ends with its scope).
            var value: Value?
            let read = ObservationRecorder.recordKeys { value = context.withValues(evaluate) }
            if let value {
                if read.allSatisfy({ context.initial.isStable($0.id) }) { return memo.storeInitial(value) }
                memo.readsUnstableEntries.store(true, ordering: .relaxed)
                return value
            }
        } else if !context.readsInitial {
            // After a change in the tree: what the current state gives stays valid until the tree changes
            // again, unless a provider may build anew (a transient, a scoped object).
            let snapshot = context.snapshot()
            if let value = evaluate(context.readable(snapshot.values)) {
                if !snapshot.values.hasProviders {
                    memo.storePublished(value, generation: snapshot.generation, in: context.tree)
                }
                return value
            }
        } else if let value = context.withValues(evaluate) {
            return value
        }
        context.missingObject(Value.self)
    }

    /// The property itself, to reach its ``context``: `$logger.context`.
    ///
    /// ```swift
    /// let bound = service.$logger.context
    /// ```
    public var projectedValue: Injected<Value> { self }

    /// The value, read from ``context`` now; for an `Injected` held as a constant.
    ///
    /// ```swift
    /// let logger = Injected(\.logger)
    /// logger().info("hello")
    /// ```
    @inlinable
    public func callAsFunction() -> Value { read() }
}

// MARK: - InjectedMemo

/// What an ``Injected`` computed from its context's initial values, kept so that a warm read is two
/// loads. Set once; valid while the context reads its initial values (nothing in its tree was updated).
@usableFromInline
final class InjectedMemo<Value: Sendable>: Sendable {
    /// The bit pattern of an `Unmanaged<ValueBox<Value>>` this memo holds a +1 reference to, or 0.
    @usableFromInline
    let initialBits = Atomic<UInt>(0)
    /// Whether the initial values give this property something that may change between reads (a
    /// transient or scoped provider's object), which must then not be kept.
    @usableFromInline
    let readsUnstableEntries = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    deinit {
        let bits = initialBits.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<ValueBox<Value>>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        // No reader can be inside: each holds the property, which holds this memo.
        let published = publishedBits.load(ordering: .acquiring)
        if published != 0 {
            Unmanaged<PublishedValue<Value>>.fromOpaque(UnsafeRawPointer(bitPattern: published)!).release()
        }
    }

    /// A value read from a published state (after a change in the tree), with the tree's generation it
    /// was read at: the bit pattern of an `Unmanaged<PublishedValue<Value>>` held +1, or 0. A replaced one
    /// is retired to the tree's read domain, since a reader may still be looking at it.
    @usableFromInline
    let publishedBits = Atomic<UInt>(0)

    /// The value kept from `context`'s current published state, if the tree has not changed since.
    @inlinable
    func publishedValue(in context: Context) -> Value? {
        let tree = context.tree
        let ticket = tree.readers.enter()
        defer { tree.readers.leave(ticket) }
        let bits = publishedBits.load(ordering: .acquiring)
        if bits == 0 { return nil }
        // Safe: a box replaced while this read section is open is released only after it is left.
        return Unmanaged<PublishedValue<Value>>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
            ._withUnsafeGuaranteedRef { kept in
                kept.generation == tree.generation.load(ordering: .sequentiallyConsistent) ? kept.value : nil
            }
    }

    /// Keeps `value`, read from the state of `generation`, in place of the value kept before.
    @usableFromInline
    func storePublished(_ value: Value, generation: UInt64, in tree: ContextTree) {
        let kept = Unmanaged.passRetained(PublishedValue(value, generation: generation))
        let old = publishedBits.exchange(UInt(bitPattern: kept.toOpaque()), ordering: .acquiringAndReleasing)
        if old != 0 {
            let replaced = Unmanaged<PublishedValue<Value>>.fromOpaque(UnsafeRawPointer(bitPattern: old)!)
            tree.readers.retire(replaced.takeRetainedValue())
        }
    }

    @inlinable
    var initialValue: Value? {
        let bits = initialBits.load(ordering: .acquiring)
        return bits == 0 ? nil : unboxValue(bits, as: Value.self)
    }

    /// Stores `value` unless another reader stored first; returns what is stored.
    @usableFromInline
    func storeInitial(_ value: Value) -> Value {
        let box = Unmanaged.passRetained(ValueBox(value))
        let bits = UInt(bitPattern: box.toOpaque())
        let (exchanged, winner) = initialBits.compareExchange(
            expected: 0,
            desired: bits,
            ordering: .acquiringAndReleasing
        )
        if exchanged { return value }
        box.release()
        return unboxValue(winner, as: Value.self)
    }
}

// MARK: - PublishedValue

/// A value `@Injected` read from a published state, and the tree's generation it belongs to.
@usableFromInline
final class PublishedValue<Value: Sendable>: Sendable {
    @usableFromInline
    let value: Value
    @usableFromInline
    let generation: UInt64

    init(_ value: Value, generation: UInt64) {
        self.value = value
        self.generation = generation
    }
}
