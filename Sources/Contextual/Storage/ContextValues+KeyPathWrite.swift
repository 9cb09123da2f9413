// Assigning a value through a key path without reading the value it replaces.
// Architecture: ARCHITECTURE.md, "Key-path writes".

// MARK: - Assigning through a key path

extension ContextValues {
    /// Sets the value at `keyPath` to `value`, as `values[keyPath: keyPath] = value` does, without the read
    /// of the old value that such an assignment makes through a computed property (its getter runs before
    /// its setter, in a debug build and wherever the key path is not known where it is applied): a key
    /// that is not set does not compute its default, and a provider does not build its object, for a
    /// value about to be replaced. What the testing trait `.context(_:_:)` sets goes through here.
    ///
    /// The getter still runs. When `keyPath` is one property of the values (`\.level`, see
    /// ``KeyPathShape``), the first read it makes of these values that would compute a default or build,
    /// of a key whose value is a `Value`, is given `value` instead; if the setter then writes any other
    /// key than that one, the assignment is made again as usual (the value lent went where it did not
    /// belong). A longer path (`\.config.timeout`) reads the value it changes part of, as it must, and so
    /// does a property whose value is not its key's (`var seconds: Int { Int(self[TimeoutKey.self]…) }`),
    /// whose key's value cannot be made from the value assigned.
    ///
    /// ```swift
    /// let verbose = app.child { $0.assign(2, at: \.verbosity) }  // VerbosityKey.defaultValue is not computed
    /// ```
    @inlinable
    package mutating func assign<Value>(_ value: Value, at keyPath: WritableKeyPath<ContextValues, Value>) {
        let assignment = beginAssignment(of: value, at: keyPath)
        self[keyPath: keyPath] = value
        endAssignment(assignment, of: value, at: keyPath)
    }

    /// Starts an assignment of `value` through `keyPath`, which the caller makes next and ends with
    /// ``endAssignment(_:of:at:)``: as ``assign(_:at:)``, in straight-line code, so that an optimized build
    /// that knows the key path there calls the property's setter directly (a key path applied by the
    /// runtime, or inside a closure made for it, costs over a thousand instructions).
    @inlinable
    package mutating func beginAssignment<Value>(
        of value: Value,
        at keyPath: WritableKeyPath<ContextValues, Value>
    ) -> Assignment {
        // The own values before, kept only when there are some: a child's are empty, and copying a table
        // retains what it holds.
        let assignment = Assignment(
            own: own.count == 0 ? nil : own,
            ownIdentity: own.identity,
            pending: .begin(value, at: keyPath)
        )
        // Only reads of these values are given the value: a default computed meanwhile reads other values.
        own = own.marked(asAssigning: true)
        return assignment
    }

    /// Ends an assignment begun with ``beginAssignment(of:at:)``.
    @inlinable
    package mutating func endAssignment<Value>(
        _ assignment: Assignment,
        of value: Value,
        at keyPath: WritableKeyPath<ContextValues, Value>
    ) {
        let takenBy = assignment.pending.end(as: Value.self)
        let before = assignment.own ?? .empty
        // The setter made new own values, unmarked; a key path that set nothing leaves them as they were.
        if own.identity == assignment.ownIdentity { own = before }
        if takenBy != 0 && !wroteOnly(StorageID(raw: takenBy), over: before) {
            // The value went to another read than its own key's: assigned again, reading what it reads.
            own = before
            self[keyPath: keyPath] = value
        }
    }

    /// The value being assigned to these values through a key path, for a read of `key` that would
    /// compute a default or build: nil unless these are the values being assigned (their own values are
    /// marked) and the value goes to this read (see ``PendingWrite/take(as:for:)``).
    @usableFromInline
    func assignedValue<Key: ContextKey>(for key: Key.Type) -> Key.Value? {
        own.isAssigning ? PendingWrite.take(as: Key.Value.self, for: StorageID(key: key)) : nil
    }

    /// Whether `id` is the one entry these own values changed from `before`.
    @usableFromInline
    func wroteOnly(_ id: StorageID, over before: FrozenTable) -> Bool {
        own.rawBox(id) != before.rawBox(id) && own.changedIDs(from: before) == [id.raw]
    }

    /// An assignment in progress: the own values before it (nil: none), their identity (which holds
    /// nothing), and the value it makes pending.
    @usableFromInline
    package struct Assignment {
        @usableFromInline
        let own: FrozenTable?
        @usableFromInline
        let ownIdentity: FrozenTable.Identity
        @usableFromInline
        let pending: PendingWrite

        @inlinable
        init(own: FrozenTable?, ownIdentity: FrozenTable.Identity, pending: PendingWrite) {
            self.own = own
            self.ownIdentity = ownIdentity
            self.pending = pending
        }
    }
}

// MARK: - PendingWrite

/// A value being assigned through a key path on the running thread (see
/// ``ContextValues/assign(_:at:)``), for the read of the old value that the assignment makes: a copy of
/// it in the thread's block (``ThreadSlot/pendingValueBuffer``), or in memory of its own when it does not
/// fit or an assignment around this one holds the buffer, with its type, the key path, and which key's
/// read was given it.
///
/// ```swift
/// let pending = PendingWrite.begin(value, at: keyPath)
/// values[keyPath: keyPath] = value  // a read of the old value that would build or compute a default gets `value`
/// let takenBy = pending.end(as: Value.self)
/// ```
@usableFromInline
struct PendingWrite {
    /// The running thread's block, where the value is pending.
    @usableFromInline
    let thread: ThreadSlot.Block
    /// What the thread's words held before (an assignment this one is inside of).
    @usableFromInline
    let previous: (type: UInt, value: UInt, keyPath: UInt, takenBy: UInt)
    /// Where the copy of the value is.
    @usableFromInline
    let value: UnsafeMutableRawPointer
    /// Whether `value` is memory of its own, freed at the end.
    @usableFromInline
    let ownsMemory: Bool

    @inlinable
    init(
        thread: ThreadSlot.Block,
        previous: (type: UInt, value: UInt, keyPath: UInt, takenBy: UInt),
        value: UnsafeMutableRawPointer,
        ownsMemory: Bool
    ) {
        self.thread = thread
        self.previous = previous
        self.value = value
        self.ownsMemory = ownsMemory
    }

    /// Makes `value`, assigned through `keyPath`, the running thread's pending value, until ``end(as:)``.
    @inlinable
    static func begin<Value>(_ value: Value, at keyPath: WritableKeyPath<ContextValues, Value>) -> PendingWrite {
        let thread = ThreadSlot.Block.running
        let buffer = UnsafeMutableRawPointer(thread.words + ThreadSlot.pendingValueBuffer.index)
        let fits =
            MemoryLayout<Value>.size <= ThreadSlot.pendingValueCapacity
            && MemoryLayout<Value>.alignment <= MemoryLayout<UInt>.alignment
        // The buffer is free unless an assignment around this one put its value there.
        let bufferIsFree = thread[.pendingWriteValue] != UInt(bitPattern: buffer)
        let memory =
            fits && bufferIsFree
            ? buffer
            : UnsafeMutableRawPointer.allocate(
                byteCount: MemoryLayout<Value>.size,
                alignment: MemoryLayout<Value>.alignment
            )
        // Safe: the memory is uninitialized, large and aligned enough for a `Value`.
        memory.initializeMemory(as: Value.self, to: value)
        let pending = PendingWrite(
            thread: thread,
            previous: (
                thread[.pendingWriteType], thread[.pendingWriteValue],
                thread[.pendingWriteKeyPath], thread[.pendingWriteTakenBy]
            ),
            value: memory,
            ownsMemory: memory != buffer
        )
        thread[.pendingWriteType] = UInt(bitPattern: ObjectIdentifier(Value.self))
        thread[.pendingWriteValue] = UInt(bitPattern: memory)
        // Unretained: the assignment holds the key path until `end`.
        thread[.pendingWriteKeyPath] = ReferenceWord.unretained(keyPath)
        thread[.pendingWriteTakenBy] = 0
        return pending
    }

    /// Ends the assignment: the value is no longer pending, and the thread's words are as before
    /// ``begin(_:at:)``. Returns the storage identity of the key whose read was given the value, or 0.
    ///
    /// - Precondition: `Value` is the type given to ``begin(_:at:)``, on the same thread.
    @inlinable
    func end<Value>(as type: Value.Type) -> UInt {
        let takenBy = thread[.pendingWriteTakenBy]
        thread[.pendingWriteType] = previous.type
        thread[.pendingWriteValue] = previous.value
        thread[.pendingWriteKeyPath] = previous.keyPath
        thread[.pendingWriteTakenBy] = previous.takenBy
        // Safe: `begin` initialized it with a `Value`.
        value.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
        if ownsMemory { value.deallocate() }
        return takenBy
    }

    /// The value the running thread is assigning, for a read of `id` (a key whose value is a `Value`), if
    /// its key path is one property of the values (``KeyPathShape``) and no read was given it yet: the
    /// read of the old value that the assignment makes gets it instead of a default or a built object.
    /// Asked only where a read of the values being assigned (which the assignment marks) would compute a
    /// default or build.
    @usableFromInline
    static func take<Value>(as type: Value.Type, for id: StorageID) -> Value? {
        let thread = ThreadSlot.Block.running
        guard thread[.pendingWriteType] == UInt(bitPattern: ObjectIdentifier(Value.self)) else {
            return nil
        }
        // Given once, or never: a later read (the setter's, say) reads as usual.
        thread[.pendingWriteType] = 0
        // Safe: the key path word is the unretained key path the assignment holds until `end`.
        let keyPath = ReferenceWord.instance(thread[.pendingWriteKeyPath], as: AnyKeyPath.self)
        guard KeyPathShape.isSingleProperty(keyPath) else { return nil }
        thread[.pendingWriteTakenBy] = id.raw
        // Safe: the value word is the address of a `Value` (its type was checked), alive until `end`.
        return UnsafeRawPointer(bitPattern: thread[.pendingWriteValue])?
            .assumingMemoryBound(to: Value.self).pointee
    }

    /// Ends the lending of the running thread's pending value: the assignment's setter runs (its first
    /// write of the values being assigned), and its reads read as usual.
    @usableFromInline
    static func disarm() {
        ThreadSlot.Block.running[.pendingWriteType] = 0
    }
}
