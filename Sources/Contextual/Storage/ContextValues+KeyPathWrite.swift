// Assigning a value through a key path without reading the value it replaces.

// MARK: - Assigning through a key path

extension ContextValues {
    /// Sets the value at `keyPath` to `value`, as `values[keyPath: keyPath] = value` does, without the read
    /// of the old value that such an assignment makes through a computed property (its getter runs before
    /// its setter, in a debug build and wherever the key path is not known where it is applied): a key
    /// that is not set does not compute its default, and a provider does not build its object, for a
    /// value about to be replaced. What the testing trait `.context(_:_:)` sets goes through here.
    ///
    /// The getter still runs, but the read it makes of a key whose value is a `Value` (the property's own
    /// key) gives `value` back where it would compute a default or build: the setter replaces it anyway.
    /// A key path through a property of another type (`\.config.timeout`) reads the value it changes part
    /// of, as it must.
    ///
    /// ```swift
    /// let verbose = app.child { $0.assign(2, at: \.verbosity) }  // VerbosityKey.defaultValue is not computed
    /// ```
    @inlinable
    package mutating func assign<Value>(_ value: Value, at keyPath: WritableKeyPath<ContextValues, Value>) {
        let assignment = beginAssignment(of: value)
        self[keyPath: keyPath] = value
        endAssignment(assignment, of: Value.self)
    }

    /// Starts an assignment of `value` through a key path, which the caller makes next and ends with
    /// ``endAssignment(_:of:)``: as ``assign(_:at:)``, in straight-line code, so that an optimized build
    /// that knows the key path there calls the property's setter directly (a key path applied by the
    /// runtime, or inside a closure made for it, costs over a thousand instructions).
    @inlinable
    package mutating func beginAssignment<Value>(of value: Value) -> Assignment {
        let assignment = Assignment(own: own.identity, ownIsTesting: own.hasTestEnvironment, pending: .begin(value))
        // Reads that find no entry, or a provider, look for a pending write only in test values: marked as
        // such for the assignment (a test context's own values may be marked already).
        own = own.marked(asTesting: true)
        return assignment
    }

    /// Ends an assignment begun with ``beginAssignment(of:)``.
    @inlinable
    package mutating func endAssignment<Value>(_ assignment: Assignment, of type: Value.Type) {
        assignment.pending.end(as: Value.self)
        // The setter made new own values, unmarked; a key path that set nothing leaves them as they were.
        if own.identity == assignment.own { own = own.marked(asTesting: assignment.ownIsTesting) }
    }

    /// An assignment in progress: the identity of the own values before it and whether they read as a
    /// test context's, and the value it makes pending. It holds no reference.
    @usableFromInline
    package struct Assignment {
        @usableFromInline
        let own: FrozenTable.Identity
        @usableFromInline
        let ownIsTesting: Bool
        @usableFromInline
        let pending: PendingWrite

        @inlinable
        init(own: FrozenTable.Identity, ownIsTesting: Bool, pending: PendingWrite) {
            self.own = own
            self.ownIsTesting = ownIsTesting
            self.pending = pending
        }
    }
}

// MARK: - PendingWrite

/// A value being assigned through a key path on the running thread (see
/// ``ContextValues/assign(_:at:)``), for the read of the old value that the assignment makes: a copy of
/// it in the thread's block (``ThreadSlot/pendingValueBuffer``), or in memory of its own when it does not
/// fit or an assignment around this one holds the buffer, with its type.
///
/// ```swift
/// let pending = PendingWrite.begin(value)
/// values[keyPath: keyPath] = value  // a read of the old value that would build or compute a default gets `value`
/// pending.end(as: Value.self)
/// ```
@usableFromInline
struct PendingWrite {
    /// The running thread's block, where the value is pending.
    @usableFromInline
    let words: UnsafeMutablePointer<UInt>
    /// What the thread's type and value words held before (an assignment this one is inside of).
    @usableFromInline
    let previousType: UInt
    @usableFromInline
    let previousValue: UInt
    /// Where the copy of the value is.
    @usableFromInline
    let value: UnsafeMutableRawPointer
    /// Whether `value` is memory of its own, freed at the end.
    @usableFromInline
    let ownsMemory: Bool

    @inlinable
    init(
        words: UnsafeMutablePointer<UInt>,
        previousType: UInt,
        previousValue: UInt,
        value: UnsafeMutableRawPointer,
        ownsMemory: Bool
    ) {
        self.words = words
        self.previousType = previousType
        self.previousValue = previousValue
        self.value = value
        self.ownsMemory = ownsMemory
    }

    /// Makes `value` the running thread's pending value, until ``end(as:)``.
    @inlinable
    static func begin<Value>(_ value: Value) -> PendingWrite {
        let words = ThreadSlot.Block.running.words
        let typeWord = words + ThreadSlot.pendingWriteType.index
        let valueWord = words + ThreadSlot.pendingWriteValue.index
        let buffer = UnsafeMutableRawPointer(words + ThreadSlot.pendingValueBuffer.index)
        let fits =
            MemoryLayout<Value>.size <= ThreadSlot.pendingValueCapacity
            && MemoryLayout<Value>.alignment <= MemoryLayout<UInt>.alignment
        // The buffer is free unless an assignment around this one put its value there.
        let bufferIsFree = valueWord.pointee != UInt(bitPattern: buffer)
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
            words: words,
            previousType: typeWord.pointee,
            previousValue: valueWord.pointee,
            value: memory,
            ownsMemory: memory != buffer
        )
        typeWord.pointee = UInt(bitPattern: ObjectIdentifier(Value.self))
        valueWord.pointee = UInt(bitPattern: memory)
        return pending
    }

    /// Ends the assignment: the value is no longer pending, and the thread's words are as before
    /// ``begin(_:)``.
    ///
    /// - Precondition: `Value` is the type given to ``begin(_:)``, on the same thread.
    @inlinable
    func end<Value>(as type: Value.Type) {
        (words + ThreadSlot.pendingWriteType.index).pointee = previousType
        (words + ThreadSlot.pendingWriteValue.index).pointee = previousValue
        // Safe: `begin` initialized it with a `Value`.
        value.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
        if ownsMemory { value.deallocate() }
    }

    /// The value the running thread is assigning, if it is a `Value` and no read was given it yet: the
    /// read of the old value that the assignment makes gets it instead of a default or a built object.
    /// Asked only where a read would compute a default or build (in test values, which an assignment
    /// marks its values as).
    @usableFromInline
    static func take<Value>(as type: Value.Type) -> Value? {
        let words = ThreadSlot.Block.running.words
        let typeWord = words + ThreadSlot.pendingWriteType.index
        guard typeWord.pointee != 0, typeWord.pointee == UInt(bitPattern: ObjectIdentifier(Value.self))
        else { return nil }
        // Given once: a later read (the setter's, say) reads as usual.
        typeWord.pointee = 0
        // Safe: the value word is the address of a `Value` (its type was checked), alive until `end`.
        return UnsafeRawPointer(bitPattern: (words + ThreadSlot.pendingWriteValue.index).pointee)?
            .assumingMemoryBound(to: Value.self).pointee
    }
}
