// `ThreadSanitizerAnnotations`: tells ThreadSanitizer what `Locked`'s mutex orders, when the process runs under it.
// Architecture: ARCHITECTURE.md, "Primitives".

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ThreadSanitizerAnnotations

/// ThreadSanitizer's `__tsan_acquire` and `__tsan_release`, found in the process when it runs under
/// ThreadSanitizer, and nil otherwise.
///
/// ``Locked`` uses the toolchain's mutex (`_MutexHandle`, what `Synchronization.Mutex` is made of), whose
/// uncontended lock and unlock are one atomic compare-and-exchange each, inlined. When the lock is
/// contended, the mutex waits and hands over in the kernel (a priority-inheriting futex, in an
/// uninstrumented runtime library on Linux), so ThreadSanitizer does not see that hand-over and would
/// report correctly locked accesses as races. `Locked` therefore tells it, after taking the lock, that the
/// thread acquires what the last holder released, and before giving the lock up, that it releases what it
/// wrote: exactly the order a mutex makes. With those two calls `swift test --sanitize=thread` stays a
/// real check of every lock of the library, in this package's tests and in its users'.
///
/// Outside ThreadSanitizer (every production process) the runtime's symbols are absent, the value is nil,
/// and a lock section pays one load and one branch for it.
///
/// ```swift
/// if let annotations = threadSanitizerAnnotations { annotations.acquire(address) }
/// ```
@usableFromInline
struct ThreadSanitizerAnnotations: Sendable {
    /// The address of `__tsan_acquire(void *)`: a word, so that the type is `Sendable`.
    let acquireAddress: UInt
    /// The address of `__tsan_release(void *)`.
    let releaseAddress: UInt

    typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// The runtime's two entry points, or nil when the process does not run under ThreadSanitizer.
    static func load() -> ThreadSanitizerAnnotations? {
        // `dlopen(nil)` is the program itself: `dlsym` on it searches every loaded image, where
        // ThreadSanitizer's runtime exports its interface when it is linked in.
        guard let program = dlopen(nil, RTLD_NOW),
            let acquire = dlsym(program, "__tsan_acquire"),
            let release = dlsym(program, "__tsan_release")
        else { return nil }
        return ThreadSanitizerAnnotations(
            acquireAddress: UInt(bitPattern: acquire),
            releaseAddress: UInt(bitPattern: release)
        )
    }

    /// Tells ThreadSanitizer that this thread now sees everything released at `address`.
    @usableFromInline
    func acquire(_ address: UnsafeMutableRawPointer) {
        unsafeBitCast(acquireAddress, to: Annotation.self)(address)
    }

    /// Tells ThreadSanitizer that everything this thread did so far is released at `address`.
    @usableFromInline
    func release(_ address: UnsafeMutableRawPointer) {
        unsafeBitCast(releaseAddress, to: Annotation.self)(address)
    }
}

/// ThreadSanitizer's annotations when the process runs under it; nil in every other process. Found once,
/// on first use; immutable after.
@usableFromInline
let threadSanitizerAnnotations = ThreadSanitizerAnnotations.load()
