// Reading a context: values by key path or key type, and objects by type (`resolve`, `require`, `prepare`).

// MARK: - Reading values

extension Context {
    /// The value at `keyPath`: the nearest setting in this context's chain, or the key's default.
    ///
    /// ```swift
    /// let logger = request[\.logger]
    /// ```
    ///
    /// - Parameter keyPath: The value to read, as a property of ``ContextValues``.
    /// - Complexity: O(1), whatever the depth of the chain: at most two probes of small tables, with no lock
    ///   and no allocation. After an ``update(_:)`` in the tree, the first read of each context brings its
    ///   state up to date once, replacing the values the update changed (see ``update(_:)``).
    @inlinable @inline(__always)
    public subscript<Value>(keyPath: KeyPath<ContextValues, Value>) -> Value {
        // Every path applies the key path here, inlined where it is a literal: the compiler then calls the
        // property's getter directly and drops the key path object, which is never made nor counted. Handed
        // to a function that is not inlined (in a closure, say), it would be made on every read.
        if ObservationRecorder.active == nil {
            if readsInitial {
                if !chainHasProviders { return ContextValues.value(at: keyPath, of: initial) }
                // A view of `initial` with this context as its reader, lent without a copy.
                return ContextValues.withView(of: initial, readBy: self) { $0[keyPath: keyPath] }
            }
            if let read = beginPublishedRead() {
                let value = read[keyPath]
                tree.readers.leave(read.ticket)
                return value
            }
        }
        let read = beginRead()
        let value = ContextValues.value(at: keyPath, of: read.values)
        endRead(read)
        return value
    }

    /// Starts a read that is tracked, or that comes after a change in the tree: the context's current
    /// values, held by the read.
    @usableFromInline
    func beginRead() -> ContextRead {
        beginRead(recordingIn: ObservationRecorder.active)
    }

    /// Starts a read whose entries `recorder`, if any, records.
    func beginRead(recordingIn recorder: ObservationRecorder?) -> ContextRead {
        let start = recorder?.keyCount ?? 0
        let snapshot = snapshot()
        return ContextRead(values: readable(snapshot.values), snapshot: snapshot, recorder: recorder, start: start)
    }

    /// Ends a read begun with ``beginRead()``: records what it read for the tracking scope, if any.
    @usableFromInline
    func endRead(_ read: ContextRead) {
        guard let recorder = read.recorder else { return }
        // The boxes are kept by the access: their addresses stay unique while they are compared.
        let entries = recorder.keys(from: read.start).map { (id: $0.id, box: read.snapshot.values.box($0.id)) }
        recorder.append(ContextAccess(context: self, entries: entries, generation: read.snapshot.generation))
    }

    /// The value of `key`: the nearest setting in this context's chain, or the key's default.
    ///
    /// ```swift
    /// let verbosity = context[VerbosityKey.self]
    /// ```
    ///
    /// - Parameter key: The key type.
    /// - Complexity: O(1), as ``subscript(_:)-(KeyPath<ContextValues,Value>)``.
    @inlinable
    public subscript<Key: ContextKey>(key: Key.Type) -> Key.Value {
        if let recorder = ObservationRecorder.active { return trackedRead(recorder) { $0[key] } }
        return withValues { $0[key] }
    }
}

// MARK: - Resolving objects

extension Context {
    /// The object provided under `type` by this context or an ancestor (built now by its provider if it
    /// has one); stops the process when none is, or when its provider fails.
    ///
    /// Use this where a missing object is a wiring bug. The message names the type, every context
    /// searched, and how to provide it. Use ``require(_:)-(T.Type)`` to get an error instead, or the
    /// optional form.
    ///
    /// ```swift
    /// let db: Database = request.resolve(Database.self)
    /// let url = request.resolve(Database.self).url
    /// ```
    ///
    /// Without a type to choose by, `let db = request.resolve(Database.self)` takes the optional form
    /// (this one is disfavoured, so that an optional context never picks the form that stops the
    /// process): annotate `Database` to fail hard.
    ///
    /// - Parameter type: The type the object is provided under.
    /// - Returns: The object.
    /// - Complexity: O(1) for an object or a built singleton, whatever the depth of the chain; a provider
    ///   that has not built yet runs its factory once.
    @inlinable
    @_disfavoredOverload
    public func resolve<T: Sendable>(_ type: T.Type) -> T {
        do {
            if let object = try lookupObject(type) { return object }
        } catch {
            failHard(error)
        }
        missingObject(type)
    }

    /// The object provided under `type` by this context or an ancestor, or `nil` when none is.
    ///
    /// ```swift
    /// let cache: Cache? = request.resolve(Cache.self)
    /// ```
    ///
    /// Absence gives `nil`, and so does an object that a scope which was shut down would own (where
    /// ``require(_:)-(T.Type)`` throws ``ContextError/Code/scopeEnded``): this form never stops the
    /// process for a scope's end. A provider that fails (its factory throws, a cycle) stops the process
    /// with its message, as the hard form does. Use ``require(_:)-(T.Type)`` to handle those.
    ///
    /// - Parameter type: The type the object is provided under.
    /// - Returns: The object, or `nil` when no context in the chain provides one.
    /// - Complexity: O(1), as ``resolve(_:)->T``.
    @inlinable
    public func resolve<T: Sendable>(_ type: T.Type) -> T? {
        do {
            return try lookupObject(type)
        } catch {
            // What a scope that was shut down would own is unavailable, not a failure.
            if error.code == .scopeEnded { return nil }
            failHard(error)
        }
    }

    /// The object provided under `type` by this context or an ancestor, built now by its provider if it
    /// has one.
    ///
    /// ```swift
    /// do {
    ///     let db = try request.require(Database.self)
    /// } catch {
    ///     // `error` is a ContextError: `require` throws nothing else.
    ///     if error.code == .missingObject { print(error) }  // names the type, the contexts searched, the fix
    /// }
    /// ```
    ///
    /// - Throws: ``ContextError``: ``ContextError/Code/missingObject`` when no context provides it;
    ///   ``ContextError/Code/factoryFailed``, ``ContextError/Code/cycle`` and the other provider codes
    ///   when its provider fails; ``ContextError/Code/scopeEnded`` when this context was shut down.
    ///
    /// - Parameter type: The type the object is provided under.
    /// - Returns: The object.
    /// - Complexity: O(1), as ``resolve(_:)->T``.
    @inlinable
    public func require<T: Sendable>(_ type: T.Type) throws(ContextError) -> T {
        if let object = try lookupObject(type) { return object }
        throw ContextError.missingObject(type, in: self)
    }

    /// The object provided under `type`, awaiting its provider's async factory if it has one and it was
    /// not built yet.
    ///
    /// ```swift
    /// let pool = try await app.prepare(ConnectionPool.self)
    /// ```
    ///
    /// `prepare` is the one verb of the async operations that await builds (``prepare()`` does it for
    /// every provider). They are not async overloads of ``require(_:)-(T.Type)`` and ``validate()``,
    /// because Swift does not pick an async overload under `await` in a program's top-level code
    /// (`main.swift`): it calls the synchronous one, which would fail with
    /// ``ContextError/Code/asyncProvider``. Once prepared, ``require(_:)-(T.Type)``, ``resolve(_:)->T``
    /// and `@Injected` return the object synchronously. It does not leave the caller's executor unless the
    /// factory it awaits does.
    ///
    /// - Parameter type: The type to resolve.
    /// - Returns: The object, built now if its provider has not built it yet.
    /// - Throws: ``ContextError``, as ``require(_:)-(T.Type)`` does, except that a provider with an async
    ///   factory does not fail with ``ContextError/Code/asyncProvider`` here; `CancellationError` when
    ///   the task is cancelled while it waits for another task's build of the object (it stops waiting at
    ///   once; the build goes on for the others). When the task that builds is cancelled instead, the
    ///   tasks that wait for it build again rather than fail. A wait longer than
    ///   ``ContextValues/buildWaitLimit`` fails with ``ContextError/Code/buildTimedOut``.
    @discardableResult
    nonisolated(nonsending)
        public func prepare<T: Sendable>(_ type: T.Type) async throws -> T
    {
        do throws(ContextError) {
            switch try objectEntry(type) {
            case .missing: throw ContextError.missingObject(type, in: self)
            case .object(let object): return object
            case .provider(let provider): return try await provider.resolveAsync(from: self)
            }
        } catch {
            if error.code == .cancelled { throw CancellationError() }
            throw error
        }
    }

    /// The value at `keyPath`, with a failure of the provider behind it (if any) thrown rather than
    /// stopping the process, as reading it with the subscript would.
    ///
    /// ```swift
    /// let client = try ctx.require(\.httpClient)  // in a factory: a failure reaches the caller
    /// ```
    ///
    /// - Throws: ``ContextError``, as ``require(_:)-(T.Type)`` does.
    ///
    /// - Parameter keyPath: The value to read, as a property of ``ContextValues``.
    /// - Returns: The value.
    public func require<Value>(_ keyPath: KeyPath<ContextValues, Value>) throws(ContextError) -> Value {
        let sink = FailureSink()
        let value = FailureSink.$pushed.withValue(sink) { self[keyPath] }
        if let error = sink.first { throw error }
        return value
    }

    // MARK: - Lookup

    /// The object under `type`, or nil when none is provided; throws when its provider fails.
    @inlinable
    func lookupObject<T: Sendable>(_ type: T.Type) throws(ContextError) -> T? {
        if ObservationRecorder.active == nil && readsInitial && !isEnded {
            let raw = initial.rawBox(StorageID(object: type))
            if raw & 1 == 0 { return raw == 0 ? nil : unboxValue(raw, as: T.self) }
            if let built = initial.builtSingleton(raw, as: T.self) { return built }
            // A provider to run for this context: its resolve is specialized here, for `T`.
            return try ReferenceWord.instance(raw & ~1, as: ProviderBox<T>.self).resolve(from: self)
        }
        return try lookupObjectSlowly(type)
    }

    /// The object under `type`, or nil when none is provided, as `object(type)` on the values handed to
    /// a read gives it, but without copying them to name the reader (a copy of a context's values
    /// retains and releases five references): for `@Injected(T.self)`. A provider's failure stops the
    /// process, unless a `require` waits for it (then nil).
    @inlinable
    func lookupObjectOrStop<T: Sendable>(_ type: T.Type, file: StaticString, line: UInt) -> T? {
        do {
            return try lookupObject(type)
        } catch {
            FailureSink.recordOrStop(error, file: file, line: line)
            return nil
        }
    }

    @usableFromInline
    func lookupObjectSlowly<T: Sendable>(_ type: T.Type) throws(ContextError) -> T? {
        switch try objectEntry(type) {
        case .missing: return nil
        case .object(let object): return object
        case .provider(let provider): return try provider.resolve(from: self)
        }
    }

    /// What this context holds under `type`, tracked when a recorder is active.
    func objectEntry<T: Sendable>(_ type: T.Type) throws(ContextError) -> ObjectEntry<T> {
        let id = StorageID(object: type)
        if let recorder = ObservationRecorder.active { return trackedRead(recorder) { $0.objectEntry(id, as: type) } }
        return withValues { $0.objectEntry(id, as: type) }
    }

    @usableFromInline
    func missingObject<T>(_ type: T.Type, file: StaticString = #fileID, line: UInt = #line) -> Never {
        HardFailure.stop(.missingObject(type, in: self), file: file, line: line)
    }

    @usableFromInline
    func failHard(_ error: ContextError) -> Never {
        HardFailure.stop(error)
    }
}

// MARK: - ContextRead

/// A read off the fast path: the values it reads (which keep what they point to alive), and what a
/// tracking scope needs to record it.
@usableFromInline
struct ContextRead {
    @usableFromInline
    let values: ContextValues
    let snapshot: Snapshot
    let recorder: ObservationRecorder?
    let start: Int
}
