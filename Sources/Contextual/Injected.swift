// `@Injected`: a property that reads a value by key path, or an object by type, from its bound context.

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
/// each time); after a change it reads once more and keeps that. In an optimized build, a value of a
/// trivial type (no references, at most two words: an `Int`, a `Bool`, a `UUID`) is kept so that a read
/// after a change costs what one before it does; any other value is then read inside a lock-free read
/// section, 1.5-2x a warm read's cost. In a context whose chain registers providers, a property keeps
/// what it read from its second read on: its first read only evaluates, since a service made per request
/// mostly reads each property once, and keeping a value costs more than the read.
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
    public var context: Context { memo.context }

    /// Everything the property holds: its context, what it reads, and what it kept. One reference, so
    /// that the property is one word to copy (a getter of a struct or a class copies it on every read,
    /// and a debug build does not optimize the copy away) and making one allocates once.
    @usableFromInline
    let memo: InjectedMemo<Value>

    /// What the property reads.
    @inlinable
    var source: Source { memo.source }

    /// Reads the value at `keyPath`, from `context` (by default the current context at creation). When a
    /// provider behind the key path fails, an access stops the process, located at `file` and `line`: by
    /// default, where the property is declared.
    ///
    /// ```swift
    /// @Injected(\.logger) var logger
    /// @Injected(\.logger, from: app) var appLogger
    /// ```
    @inlinable
    public init(
        _ keyPath: KeyPath<ContextValues, Value> & Sendable,
        from context: Context = .current,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        self.memo = InjectedMemo(
            context: context,
            source: .keyPath { ContextValues.value(at: keyPath, of: $0) },
            file: file,
            line: line
        )
    }

    /// Reads the object provided under `type`; an access stops the process when no context provides it,
    /// with a message naming the type and the contexts searched, located at `file` and `line`: by default,
    /// where the property is declared.
    ///
    /// ```swift
    /// @Injected(Database.self) var database
    /// ```
    public init(
        _ type: Value.Type,
        from context: Context = .current,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        self.memo = InjectedMemo(context: context, source: .object, file: file, line: line)
    }

    /// Reads the object provided under `type`, or `nil` when no context provides it. When its provider
    /// fails, an access stops the process, located at `file` and `line`: by default, where the property
    /// is declared.
    ///
    /// ```swift
    /// @Injected(Cache.self) var cache: Cache?
    /// ```
    public init<Object: Sendable>(
        _ type: Object.Type,
        from context: Context = .current,
        file: StaticString = #fileID,
        line: UInt = #line
    )
    where Value == Object? {
        self.memo = InjectedMemo(
            context: context,
            source: .computed { .some($0.object(type, endedScopeGivesNil: true)) },
            file: file,
            line: line
        )
    }

    /// The value, read from ``context`` now.
    ///
    /// ```swift
    /// logger.info("hello")
    /// ```
    @inlinable
    public var wrappedValue: Value { read() }

    /// A warm read: the value kept from the context's initial values. Written so that a debug build,
    /// which specializes nothing, looks up no generic metadata either (no `Optional<Value>`, no box type).
    @inlinable
    func read() -> Value {
        let memo = self.memo
        // Whether a recorder tracks reads: asked once.
        let untracked = ObservationRecorder.active == nil
        // Compiled out of a debug build, where asking `Value`'s layout on every read would cost more than a
        // warm read (`keepsInline` is false there anyway).
        #if !DEBUG
        if memo.keepsInline {
            // A trivial value: kept in words, valid for the tree's generation, before or after an update.
            if untracked, let value = memo.inlineValue() { return value }
            return readAfterChange(mayUsePublished: false)
        }
        #endif
        // Whether a value kept from a published state may be used: nobody tracks reads, and the context's
        // tree changed (a context that reads its initial values has none).
        var mayUsePublished = untracked
        // `memo.warmValue`, spelled out: a debug build would call it as a function and look up the
        // metadata of `Optional<Value>`.
        if untracked && memo.context.readsInitial {
            let kept = memo.initialBits.load(ordering: .acquiring)
            if kept != 0 { return memo.initialValue(at: kept) }
            mayUsePublished = false
        }
        return readAfterChange(mayUsePublished: mayUsePublished)
    }

    #if !DEBUG
    /// The value of an `@Injected` property of a class (the compiler reads a wrapped property of a class
    /// through this subscript rather than ``wrappedValue``).
    ///
    /// A property of a class is a `var` of an object that others may reach, so reading the wrapper copies
    /// it out, retaining and releasing its reference. A warm read here takes the address of the property's
    /// memo without a reference (an optimized build then neither retains nor releases it): the object,
    /// kept alive for the read, holds the property, which holds its memo, and the warm read runs no code
    /// of the object's that could replace the property. Any other read goes through the copy.
    ///
    /// Release builds only: in a debug build the compiler's call would project its key paths at run time
    /// (about 2,700 instructions a read against 830 through ``wrappedValue``), so there a class reads the
    /// property through ``wrappedValue``, as a struct does.
    ///
    /// The compiler calls it with the property's own storage. Assign the storage (`_logger`) only in the
    /// class's initializer, as with any `@Injected` property: replacing it while another thread reads the
    /// property is a data race.
    ///
    /// ```swift
    /// final class Handler {
    ///     @Injected(\.logger) var logger  // read through here
    /// }
    /// ```
    @inlinable
    public static subscript<Enclosing: AnyObject>(
        _enclosingInstance object: Enclosing,
        wrapped wrappedKeyPath: KeyPath<Enclosing, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Enclosing, Injected<Value>>
    ) -> Value {
        // Always inlined (in an optimized build) into the class's property, where the key paths are
        // constants: direct accesses, not key paths projected at run time.
        @inline(__always) get {
            let warm = ReferenceWord.withHeldInstance(
                in: object,
                loading: { $0[keyPath: storageKeyPath].memo },
                reading: { $0.warmValue }
            )
            if let warm { return warm }
            let property = object[keyPath: storageKeyPath]
            return property.readAfterChange(
                mayUsePublished: ObservationRecorder.active == nil && !property.context.readsInitial
            )
        }
    }
    #endif

    /// A read once something in the tree changed: what was kept from the published state, if still
    /// current, when `mayUsePublished` (the caller found that no recorder tracks reads and that the
    /// context's tree changed: neither is asked again on the steady read after an update); otherwise, or
    /// when nothing current is kept, ``readSlowly(_:)``. Specialized where it is used, but never inlined,
    /// so that the loop around a warm read stays as small as the warm read itself (a larger one cost the
    /// two-thread benchmark a fifth of its throughput in some runs, and added about 25 instructions to the
    /// warm read itself).
    @inlinable @inline(never)
    func readAfterChange(mayUsePublished: Bool) -> Value {
        if mayUsePublished && !memo.keepsInline, let value = memo.publishedValue(in: memo.context) {
            return value
        }
        return readSlowly { evaluate($0) }
    }

    /// Computes the value from a context's values; nil only when a required object is missing. Inlined
    /// into the caller's specialized code, so that a key path is projected for the concrete `Value`.
    @inlinable
    func evaluate(_ values: ContextValues) -> Value? {
        switch source {
        case .keyPath(let read): read(values)
        case .object: values.object(Value.self)
        case .computed(let compute): compute(values)
        }
    }

    /// A read that is not a memo hit, evaluating with `evaluate` (made by the caller). Specialized
    /// where the property is read, so that nothing here looks up generic metadata for `Value`: every
    /// first read of a property made per request comes here.
    ///
    /// A read that fails hard (a missing object, a provider that throws, behind a key path or a type,
    /// before or after an update) is reported where the property is declared (``InjectedMemo/file``,
    /// ``InjectedMemo/line``): an object by type read from the initial values passes the declaration to
    /// its lookup; any other evaluation that may reach a provider runs ``declared(_:)``.
    @inlinable @inline(never)
    func readSlowly(_ evaluate: (ContextValues) -> Value?) -> Value {
        let context = self.context
        if let recorder = ObservationRecorder.active {
            if let value = declared({ context.trackedRead(recorder, evaluate) }) { return value }
        } else if context.readsInitial && !context.chainHasProviders {
            // The initial values never change, so what they give is valid for as long as they are read.
            if let value = evaluate(context.initial) { return memo.storeInitial(value) }
        } else if context.readsInitial && !memo.wasRead.exchange(true, ordering: .relaxed) {
            // The first read only evaluates: a service made per request mostly reads each property once,
            // and keeping a value (a box) or learning which entries a read depends on costs more than
            // the read.
            if let value = readInitial(context, evaluate) { return value }
        } else if context.readsInitial, case .object = source,
            !memo.readsUnstableEntries.load(ordering: .relaxed)
        {
            // From the second read on, an object read by type is kept if its one entry is stable (a
            // value, or a singleton built), with no recording of what was read.
            if let value = readInitial(context, evaluate) {
                if context.initial.isStable(StorageID(object: Value.self)) { return memo.storeInitial(value) }
                memo.readsUnstableEntries.store(true, ordering: .relaxed)
                return value
            }
        } else if context.readsInitial && !memo.readsUnstableEntries.load(ordering: .relaxed) {
            // From the second read on, the same as long as every entry read is stable: a value, or a
            // singleton already built (a transient provider builds anew on every read, a scoped object
            // ends with its scope).
            var value: Value?
            let stable = declared { context.readInitialRecordingStability { value = context.withValues(evaluate) } }
            if let value {
                if stable { return memo.storeInitial(value) }
                memo.readsUnstableEntries.store(true, ordering: .relaxed)
                return value
            }
        } else if !context.readsInitial {
            // After a change in the tree: what the current state gives stays valid until the tree changes
            // again, unless a provider may build anew (a transient, a scoped object).
            var value: Value?
            let read = declared { context.readSnapshot { value = evaluate($0) } }
            if let value {
                if !read.hasProviders { memo.storePublished(value, generation: read.generation, in: context.tree) }
                return value
            }
        } else if let value = declared({ context.withValues(evaluate) }) {
            return value
        }
        context.missingObject(Value.self, file: memo.file, line: memo.line)
    }

    /// What `context`'s values give, in a chain with providers: an object by type read in place (the
    /// values are not copied to name the reader), anything else through `evaluate`.
    @inlinable
    func readInitial(_ context: Context, _ evaluate: (ContextValues) -> Value?) -> Value? {
        if case .object = source {
            return context.lookupObjectOrStop(Value.self, file: memo.file, line: memo.line)
        }
        return declared { context.withValues(evaluate) }
    }

    /// Runs `evaluation` with this property as the thread's ``ThreadSlot/injectedRead``, so that a hard
    /// failure inside it (a provider behind a key path that throws) is reported where the property is
    /// declared (see ``HardFailure``). The memo is alive for the call: the property holds it.
    @inlinable
    func declared<Result>(_ evaluation: () -> Result) -> Result {
        ThreadSlot.injectedRead.withWord(ReferenceWord.unretained(memo), evaluation)
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

// MARK: - Source

extension Injected {
    /// What an ``Injected`` reads.
    @usableFromInline
    enum Source: Sendable {
        /// A value of the context, by key path: a closure that applies the key path, made where the
        /// property is declared (the initializer is inlined there), so that an optimized build turns it
        /// into a direct call of the property's getter. Stored as a key path, it would be projected at run
        /// time on every read that is not warm (about 900 instructions, a tenth of a request's cost).
        case keyPath(@Sendable (ContextValues) -> Value)
        /// The object provided under `Value`; missing stops the process.
        case object
        /// Anything else (the optional object form, whose object type is not `Value`).
        case computed(@Sendable (ContextValues) -> Value?)
    }
}
