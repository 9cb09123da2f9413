// `ThreadSlot`: one word per thread, for what a synchronous call installs for the calls it makes.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ThreadSlot

/// A word each thread has its own of (a `pthread` key). Either an unretained reference that a
/// synchronous call installs for the calls it makes (``withWord(_:_:)``): the running thread's innermost
/// default being computed (``DefaultFrame``) or provider being built (``ResolutionFrame``); or, in a slot
/// made with `releasingAtThreadExit`, a retained reference the thread keeps for later (``keepSpare(_:)``): a
/// spare resolution frame or scope store buffer. A releasing slot is never used with ``withWord(_:_:)``.
///
/// Cheaper than a task local, whose push allocates outside a task (a few hundred instructions against a
/// few dozen here), and right for synchronous work, which runs on one thread from start to end; work
/// that may suspend keeps its path in a task local.
///
/// ```swift
/// static let slot = ThreadSlot()
/// slot.withWord(ReferenceWord.unretained(frame)) { slot.word }  // the frame's word
/// ```
@usableFromInline
struct ThreadSlot: Sendable {
    private let key: pthread_key_t

    /// Makes the thread-local key; each use site keeps one for the life of the process. With
    /// `releasingAtThreadExit`, the slot holds a retained reference (see ``keepSpare(_:)``), which a thread
    /// releases as it ends.
    init(releasingAtThreadExit: Bool = false) {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, releasingAtThreadExit ? ThreadSlot.release : nil)
        precondition(result == 0, "pthread_key_create failed with \(result)")
        self.key = key
    }

    /// Releases the reference a slot releasing at thread exit holds, as its thread ends (the destructor of
    /// its key, which the system calls with a word that is not 0).
    #if canImport(Darwin)
    private static let release: @convention(c) (UnsafeMutableRawPointer) -> Void = { word in
        // Safe: a slot made this way holds only retained references (see `keepSpare(_:)`).
        Unmanaged<AnyObject>.fromOpaque(word).release()
    }
    #else
    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { word in
        // Safe: a slot made this way holds only retained references (see `keepSpare(_:)`).
        if let word { Unmanaged<AnyObject>.fromOpaque(word).release() }
    }
    #endif

    /// The running thread's word: what the innermost ``withWord(_:_:)`` installed, or 0.
    @usableFromInline
    var word: UInt {
        UInt(bitPattern: pthread_getspecific(key))
    }

    // MARK: - Spares

    /// Takes out the object the running thread keeps here (the caller now holds it), or nil: for a slot
    /// releasing at thread exit, which holds what ``keepSpare(_:)`` kept.
    ///
    /// ```swift
    /// let frame = slot.takeSpare(as: ResolutionFrame.self) ?? ResolutionFrame(…)
    /// ```
    ///
    /// - Precondition: the slot releases at thread exit and keeps only `Instance`s.
    func takeSpare<Instance: AnyObject>(as type: Instance.Type) -> Instance? {
        let word = self.word
        if word == 0 { return nil }
        pthread_setspecific(key, nil)
        return ReferenceWord.takeRetained(word, as: Instance.self)
    }

    /// Keeps `instance` for the running thread, unless it keeps one already; the slot holds it until it is
    /// taken out or the thread ends.
    ///
    /// - Precondition: the slot releases at thread exit.
    func keepSpare(_ instance: AnyObject) {
        guard word == 0 else { return }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: ReferenceWord.retained(instance)))
    }

    /// Runs `body` with `word` as the running thread's word, then puts the previous one back.
    ///
    /// - Precondition: `word` is an unretained reference the caller keeps alive for the call.
    @usableFromInline
    func withWord<Result>(_ word: UInt, _ body: () throws -> Result) rethrows -> Result {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: word))
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
