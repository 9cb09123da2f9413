// `ThreadSanitizerAnnotations`: tells ThreadSanitizer about `Locked`'s mutex, when the process runs under it.
// Architecture: ARCHITECTURE.md, "Primitives".

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ThreadSanitizerAnnotations

/// ThreadSanitizer's mutex annotations (`__tsan_mutex_pre_lock` and the rest of its interface), found in
/// the process when it runs under ThreadSanitizer, and nil otherwise.
///
/// ``Locked`` uses the toolchain's mutex (`_MutexHandle`, what `Synchronization.Mutex` is made of). On
/// Linux its uncontended lock and unlock are one inlined atomic compare-and-exchange each, but a
/// contended lock spins and waits in an uninstrumented runtime library and is handed over in the kernel
/// (a priority-inheriting futex), none of which ThreadSanitizer sees: it would report correctly locked
/// accesses as races. `Locked` therefore announces each lock and unlock through this interface, which is
/// what ThreadSanitizer's own interceptors do for a pthread mutex: it then knows the mutex as a mutex,
/// with the order it makes between threads, its lock-order (deadlock) checks, and the locks held in its
/// reports. With that, `swift test --sanitize=thread` is a real check of every lock of the library, in
/// this package's tests and in its users'. (On Darwin the toolchain's mutex is an `os_unfair_lock`, which
/// ThreadSanitizer intercepts; the annotations repeat what it already knows.)
///
/// Outside ThreadSanitizer (every production process) the runtime's symbols are absent and the value is
/// nil; a lock records that when it is made, and its lock sections read one flag kept beside the lock word.
///
/// ```swift
/// threadSanitizerAnnotations?.preLock(address)
/// ```
@usableFromInline
struct ThreadSanitizerAnnotations: Sendable {
    // The runtime's entry points, as words so that the type is `Sendable`.
    let createAddress: UInt
    let destroyAddress: UInt
    let preLockAddress: UInt
    let postLockAddress: UInt
    let preUnlockAddress: UInt
    let postUnlockAddress: UInt

    /// `void __tsan_mutex_create(void *addr, unsigned flags)`, and `_destroy`, `_pre_lock`, `_post_unlock`.
    typealias Announcement = @convention(c) (UnsafeMutableRawPointer?, UInt32) -> Void
    /// `void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion)`.
    typealias PostLock = @convention(c) (UnsafeMutableRawPointer?, UInt32, Int32) -> Void
    /// `int __tsan_mutex_pre_unlock(void *addr, unsigned flags)`: returns the recursion, 0 for a plain mutex.
    typealias PreUnlock = @convention(c) (UnsafeMutableRawPointer?, UInt32) -> Int32

    /// The runtime's entry points, or nil when the process does not run under ThreadSanitizer.
    static func load() -> ThreadSanitizerAnnotations? {
        // `dlopen(nil)` is the program itself: `dlsym` on it searches every loaded image, where
        // ThreadSanitizer's runtime exports its interface when it is linked in.
        guard let program = dlopen(nil, RTLD_NOW) else { return nil }
        func address(_ name: String) -> UInt? { dlsym(program, name).map { UInt(bitPattern: $0) } }
        guard let create = address("__tsan_mutex_create"),
            let destroy = address("__tsan_mutex_destroy"),
            let preLock = address("__tsan_mutex_pre_lock"),
            let postLock = address("__tsan_mutex_post_lock"),
            let preUnlock = address("__tsan_mutex_pre_unlock"),
            let postUnlock = address("__tsan_mutex_post_unlock")
        else { return nil }
        return ThreadSanitizerAnnotations(
            createAddress: create,
            destroyAddress: destroy,
            preLockAddress: preLock,
            postLockAddress: postLock,
            preUnlockAddress: preUnlock,
            postUnlockAddress: postUnlock
        )
    }

    // MARK: - Announcements (flags 0: a plain, non-recursive mutex taken for writing)

    /// A mutex made at `address`.
    func create(_ address: UnsafeMutableRawPointer) {
        unsafeBitCast(createAddress, to: Announcement.self)(address, 0)
    }

    /// The mutex at `address` is destroyed.
    func destroy(_ address: UnsafeMutableRawPointer) {
        unsafeBitCast(destroyAddress, to: Announcement.self)(address, 0)
    }

    /// This thread is about to lock the mutex at `address`.
    @usableFromInline
    func preLock(_ address: UnsafeMutableRawPointer) {
        unsafeBitCast(preLockAddress, to: Announcement.self)(address, 0)
    }

    /// This thread holds the mutex at `address`.
    @usableFromInline
    func postLock(_ address: UnsafeMutableRawPointer) {
        unsafeBitCast(postLockAddress, to: PostLock.self)(address, 0, 0)
    }

    /// This thread is about to unlock the mutex at `address`.
    @usableFromInline
    func preUnlock(_ address: UnsafeMutableRawPointer) {
        _ = unsafeBitCast(preUnlockAddress, to: PreUnlock.self)(address, 0)
    }

    /// This thread unlocked the mutex at `address`.
    @usableFromInline
    func postUnlock(_ address: UnsafeMutableRawPointer) {
        unsafeBitCast(postUnlockAddress, to: Announcement.self)(address, 0)
    }
}

/// ThreadSanitizer's annotations when the process runs under it; nil in every other process. Found once,
/// on first use; immutable after.
@usableFromInline
let threadSanitizerAnnotations = ThreadSanitizerAnnotations.load()
