// `ThreadSlot`: one word per thread, for what a synchronous call installs for the calls it makes.
// Architecture: ARCHITECTURE.md, "Thread slots".

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ThreadSlot

/// A word each thread has its own of: one of the words of the running thread's block (``words``), found
/// with one `pthread` key. Either an unretained reference that a synchronous call installs for the calls
/// it makes (``withWord(_:_:)``): the running thread's innermost default being computed
/// (``DefaultFrame``), provider being built (``ResolutionFrame``) or `@Injected` property being read
/// (``HardFailure``); or, in a slot that holds references,
/// a retained reference the thread keeps for later (``keepSpare(_:)``): a spare resolution frame or scope
/// store buffer, released when the thread ends. A slot that holds references is never used with
/// ``withWord(_:_:)``. Four of the slots (2-5) and a small buffer after the slots hold the value the
/// thread is assigning through a key path (``PendingWrite``).
///
/// Cheaper than a task local, whose push allocates outside a task (a few hundred instructions against a
/// few dozen here), and right for synchronous work, which runs on one thread from start to end; work
/// that may suspend keeps its path in a task local. One block for every slot, rather than a key per
/// slot: a build reads and writes its words as plain memory after one `pthread_getspecific`, instead of
/// a `pthread_setspecific` (about 35 instructions) per write.
///
/// ```swift
/// ThreadSlot.resolutionFrame.withWord(ReferenceWord.unretained(frame)) { ThreadSlot.resolutionFrame.word }
/// ```
@usableFromInline
struct ThreadSlot: Sendable {
    /// The slot's index in the thread's block.
    @usableFromInline
    let index: Int

    @inlinable
    init(index: Int) {
        self.index = index
    }

    // MARK: - The slots

    /// The innermost synchronous build of the running thread (unretained), for ``ResolutionFrame``.
    @usableFromInline
    static let resolutionFrame = ThreadSlot(index: 0)
    /// The innermost default the running thread computes (unretained), for ``DefaultFrame``.
    static let defaultFrame = ThreadSlot(index: 1)
    /// The type of the value the running thread assigns through a key path (its `ObjectIdentifier`'s bit
    /// pattern), or 0, for ``PendingWrite``.
    @inlinable
    static var pendingWriteType: ThreadSlot { ThreadSlot(index: 2) }
    /// The address of that value: in the block's own buffer (``pendingValueBuffer``) unless it is too
    /// large for it or the buffer is taken by an assignment around this one.
    @inlinable
    static var pendingWriteValue: ThreadSlot { ThreadSlot(index: 3) }
    /// The key path it is assigned through (unretained: the assignment holds it).
    @inlinable
    static var pendingWriteKeyPath: ThreadSlot { ThreadSlot(index: 4) }
    /// The storage identity of the key whose read was given that value, or 0.
    @inlinable
    static var pendingWriteTakenBy: ThreadSlot { ThreadSlot(index: 5) }
    /// The frame of the running thread's last synchronous build, kept for its next one (retained): a
    /// request that builds its scoped objects then allocates no frame.
    static let spareResolutionFrame = ThreadSlot(index: 6)
    /// The buffer (state and lock) of the store of a scope that ended on the running thread, emptied, kept
    /// for the next context that builds (retained): a scope per request allocates no store.
    static let spareScopeStoreBuffer = ThreadSlot(index: 7)
    /// The `@Injected` property whose read the running thread is in (its memo, unretained), for
    /// ``HardFailure``: a read that fails hard is reported where that property is declared. 0 while a
    /// synchronous factory or a default runs (``withWordOutsideInjectedRead(_:in:_:)``).
    @inlinable
    static var injectedRead: ThreadSlot { ThreadSlot(index: 8) }
    /// The first of the words that hold a pending value (see ``PendingWrite``): raw memory, not a slot.
    @inlinable
    static var pendingValueBuffer: ThreadSlot { ThreadSlot(index: 9) }
    /// The number of bytes the block keeps for a pending value.
    @inlinable
    static var pendingValueCapacity: Int { 64 }

    /// The number of words in a thread's block: its slots, then the pending value's buffer.
    private static let wordCount = pendingValueBuffer.index + pendingValueCapacity / MemoryLayout<UInt>.size
    /// The slots that hold retained references, released when their thread ends.
    private static let retaining = 6..<8

    // MARK: - The running thread's block

    /// The key of the running thread's block, whose destructor releases what its slots hold.
    private static let blockKey: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, releaseBlock)
        precondition(result == 0, "pthread_key_create failed with \(result)")
        return key
    }()

    /// The running thread's block of words, made (all 0) on the thread's first use.
    @usableFromInline
    static var words: UnsafeMutablePointer<UInt> {
        if let block = pthread_getspecific(blockKey) { return block.assumingMemoryBound(to: UInt.self) }
        return makeBlock()
    }

    private static func makeBlock() -> UnsafeMutablePointer<UInt> {
        let block = UnsafeMutablePointer<UInt>.allocate(capacity: wordCount)
        block.initialize(repeating: 0, count: wordCount)
        pthread_setspecific(blockKey, block)
        return block
    }

    /// Releases what a thread's block holds and frees it, as the thread ends (the destructor of
    /// ``blockKey``, which the system calls with a block that is not nil).
    #if canImport(Darwin)
    private static let releaseBlock: @convention(c) (UnsafeMutableRawPointer) -> Void = { block in
        ThreadSlot.release(block.assumingMemoryBound(to: UInt.self))
    }
    #else
    private static let releaseBlock: @convention(c) (UnsafeMutableRawPointer?) -> Void = { block in
        if let block { ThreadSlot.release(block.assumingMemoryBound(to: UInt.self)) }
    }
    #endif

    private static func release(_ block: UnsafeMutablePointer<UInt>) {
        // Read out first: a deinit run by a release may use the thread's slots again (in a new block).
        let held = retaining.map { block[$0] }
        block.deallocate()
        // Safe: these slots hold only retained references (see `keepSpare(_:)`).
        for word in held where word != 0 { ReferenceWord.release(word) }
    }

    // MARK: - The block, looked up once

    /// The running thread's block of words, looked up once by a synchronous call that uses several slots
    /// (a build reads the path, takes a spare frame, installs it and keeps it again): each use then skips
    /// the `pthread_getspecific` and the key's lazy initialization. Valid on the thread it was looked up
    /// on, until the thread ends: a synchronous call never leaves its thread.
    ///
    /// ```swift
    /// let thread = ThreadSlot.Block.running
    /// let path = thread[ThreadSlot.resolutionFrame]
    /// ```
    @usableFromInline
    struct Block {
        @usableFromInline
        let words: UnsafeMutablePointer<UInt>

        /// The running thread's block.
        @inlinable
        static var running: Block { Block(words: ThreadSlot.words) }

        @inlinable
        init(words: UnsafeMutablePointer<UInt>) {
            self.words = words
        }

        /// The word of `slot` in this block (see ``ThreadSlot/word``).
        @inlinable
        subscript(slot: ThreadSlot) -> UInt {
            get { words[slot.index] }
            nonmutating set { words[slot.index] = newValue }
        }
    }

    // MARK: - Reading and installing

    /// The running thread's word: what the innermost ``withWord(_:_:)`` installed (or the spare kept),
    /// or 0.
    @usableFromInline
    var word: UInt {
        ThreadSlot.words[index]
    }

    /// Runs `body` with `word` as the running thread's word, then puts the previous one back.
    ///
    /// - Precondition: `word` is an unretained reference the caller keeps alive for the call; `thread`
    ///   is the running thread's block.
    @inlinable
    func withWord<Result>(
        _ word: UInt,
        in thread: Block = .running,
        _ body: () throws -> Result
    ) rethrows -> Result {
        // The running thread's own block: valid for the call, which runs on this thread.
        let slot = thread.words + index
        let previous = slot.pointee
        slot.pointee = word
        defer { slot.pointee = previous }
        return try body()
    }

    /// Runs `body` with `word` as the running thread's word and ``injectedRead`` 0, then puts both
    /// previous words back: a build or a default's computation, which runs outside the `@Injected` read
    /// that asked for it (see ``HardFailure``). Both words in one step, as ``withWord(_:in:_:)`` does one.
    ///
    /// - Precondition: as ``withWord(_:in:_:)``.
    @inlinable
    func withWordOutsideInjectedRead<Result>(
        _ word: UInt,
        in thread: Block = .running,
        _ body: () throws -> Result
    ) rethrows -> Result {
        let slot = thread.words + index
        let readSlot = thread.words + ThreadSlot.injectedRead.index
        let (previous, previousRead) = (slot.pointee, readSlot.pointee)
        slot.pointee = word
        readSlot.pointee = 0
        defer { (slot.pointee, readSlot.pointee) = (previous, previousRead) }
        return try body()
    }

    // MARK: - Spares

    /// Takes out the object the running thread keeps here (the caller now holds it), or nil: for a slot
    /// that holds references, which holds what ``keepSpare(_:)`` kept.
    ///
    /// ```swift
    /// let frame = ThreadSlot.spareResolutionFrame.takeSpare(as: ResolutionFrame.self) ?? ResolutionFrame(…)
    /// ```
    ///
    /// - Precondition: the slot holds references, and only `Instance`s; `thread` is the running thread's
    ///   block.
    @usableFromInline
    func takeSpare<Instance: AnyObject>(as type: Instance.Type, in thread: Block = .running) -> Instance? {
        let slot = thread.words + index
        let word = slot.pointee
        if word == 0 { return nil }
        slot.pointee = 0
        return ReferenceWord.takeRetained(word, as: Instance.self)
    }

    /// Keeps `instance` for the running thread, unless it keeps one already; the slot holds it until it is
    /// taken out or the thread ends. It takes over the caller's reference (hand over the last use).
    ///
    /// - Precondition: the slot holds references; `thread` is the running thread's block.
    @usableFromInline
    func keepSpare(_ instance: consuming AnyObject, in thread: Block = .running) {
        let slot = thread.words + index
        guard slot.pointee == 0 else { return }
        slot.pointee = ReferenceWord.transferred(instance)
    }
}
