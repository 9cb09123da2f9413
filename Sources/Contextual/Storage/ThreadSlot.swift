// `ThreadSlot`: one word per thread, for what a synchronous call installs for the calls it makes.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ThreadSlot

/// A word each thread has its own of (a `pthread` key), holding an unretained reference that a
/// synchronous call installs for the calls it makes: the running thread's innermost default being
/// computed (``DefaultFrame``) or provider being built (``ResolutionFrame``).
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

    /// Makes the thread-local key; each use site keeps one for the life of the process.
    init() {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "pthread_key_create failed with \(result)")
        self.key = key
    }

    /// The running thread's word: what the innermost ``withWord(_:_:)`` installed, or 0.
    @usableFromInline
    var word: UInt {
        UInt(bitPattern: pthread_getspecific(key))
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
