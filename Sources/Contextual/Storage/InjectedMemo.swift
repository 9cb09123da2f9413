// What an `@Injected` property keeps between reads, so that a warm read is a couple of loads.
// Architecture: ARCHITECTURE.md, "The read path".
import Synchronization

// MARK: - InjectedMemo

/// What an ``Injected`` holds: the context it reads from, what it reads, and what it computed from the
/// context's initial values, kept so that a warm read is two loads. The kept value is set once; valid
/// while the context reads its initial values (nothing in its tree was updated).
@usableFromInline
final class InjectedMemo<Value: Sendable>: Sendable {
    /// The context the property reads from.
    @usableFromInline
    let context: Context
    /// What the property reads.
    @usableFromInline
    let source: Injected<Value>.Source
    /// Where the property is declared (its initializer's `file:` and `line:`): a read of it that fails
    /// hard (a missing object, a provider that throws) is reported there (``HardFailure``).
    @usableFromInline
    let file: StaticString
    @usableFromInline
    let line: UInt
    /// The address of the value kept from the initial values (memory this memo allocated, holding an
    /// initialized `Value`), or 0. Raw memory rather than a box, so that reading it back needs the
    /// metadata of `Value` only, which a debug build's unspecialized code already has: a box type's
    /// metadata would be looked up at run time on every read.
    @usableFromInline
    let initialBits = Atomic<UInt>(0)
    /// Whether the initial values give this property something that may change between reads (a
    /// transient or scoped provider's object), which must then not be kept.
    @usableFromInline
    let readsUnstableEntries = Atomic<Bool>(false)
    /// Whether the property was read once from a chain with providers (whose first read is not kept).
    @usableFromInline
    let wasRead = Atomic<Bool>(false)

    // MARK: - Trivial values, kept in words

    /// For a value of a trivial type of at most two words (``keepsInline``), kept in place of the kept
    /// values above, whether from the initial values or a published state: a sequence lock, so that a
    /// read needs neither a read section nor a reference count, also after an update. Even while stable,
    /// odd while a writer replaces the words.
    @usableFromInline
    let inlineSequence = Atomic<UInt>(0)
    /// The tree's generation the words were read at: they are valid while the tree's is the same. No
    /// tree reaches `UInt64.max`: nothing is kept yet.
    @usableFromInline
    let inlineGeneration = Atomic<UInt64>(.max)
    /// The context's tree, whose generation a read compares: one load closer than through ``context``.
    /// Unretained, as the context holds it: the context, which this memo holds, holds its tree.
    @usableFromInline
    let tree: Unmanaged<ContextTree>
    /// The value's bytes.
    @usableFromInline
    let inlineWord0 = Atomic<UInt>(0)
    @usableFromInline
    let inlineWord1 = Atomic<UInt>(0)

    /// Whether `Value` is kept in ``inlineWord0`` and ``inlineWord1``: a trivial type (no references, so
    /// its bytes can be copied at any time) of at most two words, aligned as a word at most. A constant
    /// in specialized code.
    ///
    /// Optimized builds only: a debug build specializes nothing, and asking this of `Value` at run time on
    /// every read costs more (about 350 instructions, half of a warm read there) than the words save, so
    /// a debug build keeps every value as a value of any other type (same results, same promises; only
    /// the steady read after an update costs a read section there).
    @inlinable
    var keepsInline: Bool {
        #if DEBUG
        false
        #else
        _isPOD(Value.self) && MemoryLayout<Value>.size <= 16 && MemoryLayout<Value>.alignment <= 8
        #endif
    }

    /// The value kept in words, if the tree has not changed since it was read, else nil: a warm read of a
    /// trivial value, before and after an update alike.
    ///
    /// - Precondition: ``keepsInline``.
    @inlinable
    func inlineValue() -> Value? {
        let sequence = inlineSequence.load(ordering: .acquiring)
        guard sequence & 1 == 0 else { return nil }
        // Acquiring loads (plain loads on x86-64 and arm64's `ldar`), so that the second look at the
        // sequence comes after them: a writer that changed a word meanwhile changed the sequence first.
        // The second word only for a value that has one (a constant in specialized code).
        let generation = inlineGeneration.load(ordering: .acquiring)
        let words = (
            inlineWord0.load(ordering: .acquiring),
            MemoryLayout<Value>.size > 8 ? inlineWord1.load(ordering: .acquiring) : 0
        )
        guard inlineSequence.load(ordering: .relaxed) == sequence,
            generation == tree._withUnsafeGuaranteedRef({ $0.generation.load(ordering: .acquiring) })
        else { return nil }
        return withUnsafeBytes(of: words) { $0.load(as: Value.self) }
    }

    /// Keeps `value`, read at `generation`, in words, unless another writer holds them (the value is then
    /// just not kept this time).
    ///
    /// - Precondition: ``keepsInline``.
    @usableFromInline
    func storeInline(_ value: Value, generation: UInt64) {
        let sequence = inlineSequence.load(ordering: .relaxed)
        guard sequence & 1 == 0,
            inlineSequence.compareExchange(expected: sequence, desired: sequence &+ 1, ordering: .acquiring).exchanged
        else { return }
        // Orders the stores below after the odd sequence: a reader that sees one of them sees the
        // sequence changed on its second look.
        atomicMemoryFence(ordering: .releasing)
        var words: (UInt, UInt) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.storeBytes(of: value, as: Value.self) }
        inlineGeneration.store(generation, ordering: .relaxed)
        inlineWord0.store(words.0, ordering: .relaxed)
        inlineWord1.store(words.1, ordering: .relaxed)
        inlineSequence.store(sequence &+ 2, ordering: .releasing)
    }

    @usableFromInline
    init(context: Context, source: Injected<Value>.Source, file: StaticString, line: UInt) {
        self.context = context
        self.file = file
        self.line = line
        self.tree = context.treeReference
        self.source = source
    }

    deinit {
        let kept = initialBits.load(ordering: .acquiring)
        if kept != 0 { InjectedMemo.discardInitial(at: kept) }
        // No reader can be inside: each holds the property, which holds this memo.
        let published = publishedBits.load(ordering: .acquiring)
        if published != 0 {
            ReferenceWord.release(published)
        }
    }

    /// A value read from a published state (after a change in the tree), with the tree's generation it
    /// was read at: the bit pattern of an `Unmanaged<PublishedValue<Value>>` held +1, or 0. A replaced one
    /// is retired to the tree's read domain, since a reader may still be looking at it.
    @usableFromInline
    let publishedBits = Atomic<UInt>(0)

    /// The value kept from `context`'s current published state, if the tree has not changed since.
    @inlinable @inline(__always)
    func publishedValue(in context: Context) -> Value? {
        // The tree through an unretained reference (the context, which the caller holds, holds it), in
        // small closures that the optimizer inlines: one closure around the whole read was kept as a
        // function of its own (a call, with its prologue, on the steady read after an update), and a local
        // reference to the tree would retain the tree's read domain around the read section.
        let tree = context.treeReference
        let ticket = tree._withUnsafeGuaranteedRef { $0.readers.enter() }
        defer { tree._withUnsafeGuaranteedRef { $0.readers.leave(ticket) } }
        let bits = publishedBits.load(ordering: .acquiring)
        if bits == 0 { return nil }
        // Safe: a box replaced while this read section is open is released only after it is left.
        return ReferenceWord.withInstance(bits, as: PublishedValue<Value>.self) { kept in
            let generation = tree._withUnsafeGuaranteedRef { $0.generation.load(ordering: .sequentiallyConsistent) }
            return kept.generation == generation ? kept.value : nil
        }
    }

    /// Keeps `value`, read from the state of `generation`, in place of the value kept before.
    @usableFromInline
    func storePublished(_ value: Value, generation: UInt64, in tree: ContextTree) {
        if keepsInline { return storeInline(value, generation: generation) }
        let kept = ReferenceWord.retained(PublishedValue(value, generation: generation))
        let old = publishedBits.exchange(kept, ordering: .acquiringAndReleasing)
        if old != 0 { tree.readers.retire(ReferenceWord.takeRetained(old, as: PublishedValue<Value>.self)) }
    }

    /// The kept value when a read may use it (nobody tracks reads, the context reads its initial values,
    /// and a value was kept), else nil: a warm read in an optimized build.
    @inlinable
    var warmValue: Value? {
        if keepsInline { return ObservationRecorder.active == nil ? inlineValue() : nil }
        guard ObservationRecorder.active == nil && context.readsInitial else { return nil }
        let kept = initialBits.load(ordering: .acquiring)
        return kept == 0 ? nil : initialValue(at: kept)
    }

    /// The value kept at `address`, a non-zero ``initialBits``. An instance method, not a static one: a
    /// debug build would look up the metadata of `InjectedMemo<Value>` to call a static one.
    @inlinable
    func initialValue(at address: UInt) -> Value {
        // Safe: the memo initialized the memory before publishing its address, and frees it in its deinit.
        // `!` rather than `unsafelyUnwrapped`, which a debug build calls as a generic function.
        UnsafePointer<Value>(bitPattern: address)!.pointee
    }

    /// Stores `value` unless another reader stored first; returns what is stored.
    @usableFromInline
    func storeInitial(_ value: Value) -> Value {
        if keepsInline {
            // Valid while the tree is at the generation the initial values belong to.
            storeInline(value, generation: context.initialGeneration)
            return value
        }
        let memory = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        memory.initialize(to: value)
        let address = UInt(bitPattern: memory)
        let (exchanged, winner) = initialBits.compareExchange(
            expected: 0,
            desired: address,
            ordering: .acquiringAndReleasing
        )
        if exchanged { return value }
        InjectedMemo.discardInitial(at: address)
        return initialValue(at: winner)
    }

    /// Deinitializes and frees the memory of a kept value.
    private static func discardInitial(at address: UInt) {
        // Safe: `address` came from `storeInitial`'s allocation and nothing reads it any more.
        let memory = UnsafeMutablePointer<Value>(bitPattern: address).unsafelyUnwrapped
        memory.deinitialize(count: 1)
        memory.deallocate()
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

// MARK: - Where the property is declared

extension InjectedMemo: InjectedDeclaration {}
