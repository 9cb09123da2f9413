// `DetachedThread`: a thread of its own for work that must not wait for the cooperative pool (internal).
// Architecture: ARCHITECTURE.md, "Primitives".

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - DetachedThread

/// Starts a detached POSIX thread that runs a closure, without Foundation's `Thread` (which would make
/// every program that links the library load Foundation and its ICU data).
///
/// ```swift
/// DetachedThread.start { waitForTheDeadline() }
/// ```
enum DetachedThread {
    /// Runs `body` on a new detached thread; false when the system gives no thread (`body` then never
    /// runs, and the caller decides what to do instead).
    @discardableResult
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        // The closure travels to the thread as a retained box, which the thread releases.
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let started = pthread_create(&thread, nil, { DetachedThread.run($0) }, box) == 0
        if started, let thread { pthread_detach(thread) }
        #else
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { DetachedThread.run($0) }, box) == 0
        if started { pthread_detach(thread) }
        #endif
        if !started { Unmanaged<Box>.fromOpaque(box).release() }
        return started
    }

    private static func run(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        // Safe: `start` passed a retained `Box` as the thread's argument.
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        box.body()
        return nil
    }

    private final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
