// `ReadDomain`: lock-free read sections and the deferred release of replaced states.
// Architecture: ARCHITECTURE.md, "The read path".

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - ReadDomain

/// Epoch-based reclamation for the states of the contexts of one tree: readers take no lock and write
/// only to a counter of their own thread's stripe; a replaced state is released once no reader can
/// still be looking at it.
///
/// A reader enters by counting itself in the stripe of its thread, under the parity of the current
/// epoch, and leaves by uncounting itself. A writer that replaces a state hands the old one to
/// ``retire(_:)``; it is released once the epoch has advanced twice since, and the epoch advances only
/// when no reader is counted under the parity of the epoch before the current one. Nothing waits: a
/// writer that finds readers still inside leaves the state listed, and a thread of the domain's releases
/// it once they have left (``releaseWhenReadersLeave()``), so that nothing replaced outlives the reads
/// that could still see it by more than a few milliseconds, the read path stays two atomic operations,
/// and a read that runs user code (a default value, a key-path getter) may itself write without
/// deadlock.
///
/// `@unchecked Sendable`: the counters live in memory this class allocates and owns, accessed only
/// through atomics; the retired list is behind the class's own `Locked`.
@usableFromInline
final class ReadDomain: @unchecked Sendable {
    /// Stripes of counters, one cache line (and a spare one) apart so that threads don't share a line.
    @usableFromInline
    static let stripes = 16
    /// The distance in `Atomic<Int>`s between two stripes: 128 bytes.
    @usableFromInline
    static let stride = 16

    /// Per stripe, two counters (index 0 and 1: readers that entered under an even or odd epoch).
    @usableFromInline
    let counters: UnsafeMutablePointer<Atomic<Int>>
    @usableFromInline
    let epoch = Atomic<UInt>(0)
    /// Whether a thread is releasing what is listed in `retired` as the readers inside leave (see
    /// ``releaseWhenReadersLeave()``). Relaxed: the list's lock orders what it guards.
    private let isReleasing = Atomic<Bool>(false)
    private let retired = Locked<[(epoch: UInt, object: any AnyObject & Sendable)]>.make([])

    init() {
        let count = ReadDomain.stripes * ReadDomain.stride
        counters = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: count)
        // Only the two counters at the start of each stripe are used; the rest is padding.
        for stripe in 0..<ReadDomain.stripes {
            (counters + stripe * ReadDomain.stride).initialize(to: Atomic(0))
            (counters + stripe * ReadDomain.stride + 1).initialize(to: Atomic(0))
        }
    }

    deinit {
        for stripe in 0..<ReadDomain.stripes {
            (counters + stripe * ReadDomain.stride).deinitialize(count: 2)
        }
        counters.deallocate()
    }

    // MARK: - Readers

    /// A reader's place: the counter it incremented.
    @usableFromInline
    struct Ticket {
        @usableFromInline
        let counter: UnsafeMutablePointer<Atomic<Int>>

        @inlinable
        init(counter: UnsafeMutablePointer<Atomic<Int>>) {
            self.counter = counter
        }
    }

    /// Enters a read: until ``leave(_:)``, no state retired from now on is released.
    @inlinable
    func enter() -> Ticket {
        let parity = Int(epoch.load(ordering: .sequentiallyConsistent) & 1)
        let counter = counters + (ReadDomain.currentStripe() &* ReadDomain.stride &+ parity)
        counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        return Ticket(counter: counter)
    }

    /// Leaves a read entered with `ticket`.
    @inlinable
    func leave(_ ticket: Ticket) {
        ticket.counter.pointee.wrappingSubtract(1, ordering: .releasing)
    }

    @inlinable
    static func currentStripe() -> Int {
        let thread = ReadDomain.threadIdentity()
        // Fibonacci hashing of the thread's identity, keeping four bits.
        return Int(truncatingIfNeeded: (thread &* 0x9E37_79B9_7F4A_7C15) &>> 60)
    }

    @inlinable
    static func threadIdentity() -> UInt {
        #if canImport(Glibc) || canImport(Musl)
        return UInt(pthread_self())
        #elseif canImport(Darwin)
        return UInt(bitPattern: pthread_self())
        #else
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) &>> 20 }
        #endif
    }

    // MARK: - Writers

    /// Hands over `object`, already unreachable for new readers, to be released once no reader can still
    /// be looking at it; releases whatever retired earlier is now safe.
    ///
    /// Tries for a short while to release it at once, giving concurrent readers time to leave; when a
    /// reader stays inside (for instance the caller's own enclosing read), the object waits for a later
    /// call or the end of the tree. Never blocks indefinitely.
    func retire(_ object: any AnyObject & Sendable) {
        // The common case, in one lock: nothing waits and no reader is inside, so the epoch moves on
        // twice and `object` goes as soon as the caller lets it go, without being listed.
        let listed = retired.withLock { list -> Bool in
            let now = epoch.load(ordering: .sequentiallyConsistent)
            if list.isEmpty && advanceEpoch(from: now) && advanceEpoch(from: now &+ 1) { return false }
            list.append((now, object))
            return true
        }
        if !listed { return }
        for attempt in 0..<64 {
            if reclaim() { return }
            if attempt > 4 { ReadDomain.yieldThread() }
        }
        releaseWhenReadersLeave()
    }

    /// Starts, unless one runs, a thread of its own that releases what is listed once the readers inside
    /// have left: it looks again after 50 µs, then twice as long each time, up to 10 ms, and ends when
    /// nothing is left. Reached only when a reader stays inside a read (user code that blocks, a thread
    /// preempted) while a writer retires: the read path pays nothing for it, and a thread rather than a
    /// task, so that a cooperative pool kept busy cannot delay it.
    private func releaseWhenReadersLeave() {
        guard !isReleasing.exchange(true, ordering: .relaxed) else { return }
        // The thread's closure holds the domain until the loop ends.
        if !DetachedThread.start({ self.releaseLoop() }) {
            // No thread to be had: the next writer, or the tree's end, releases what is listed.
            isReleasing.store(false, ordering: .relaxed)
        }
    }

    /// The loop of ``releaseWhenReadersLeave()``'s thread.
    private func releaseLoop() {
        var pause: UInt32 = 50
        while true {
            if reclaim() {
                isReleasing.store(false, ordering: .relaxed)
                // Listed after that look, while this thread still ran: it goes on unless another started.
                if retired.withLock({ $0.isEmpty }) { return }
                guard !isReleasing.exchange(true, ordering: .relaxed) else { return }
                continue
            }
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
    }

    /// Advances the epoch as far as readers allow and releases what is safe; returns whether nothing is
    /// left waiting.
    @discardableResult
    func reclaim() -> Bool {
        var released: [any AnyObject & Sendable] = []
        let empty = retired.withLock { list -> Bool in
            let start = epoch.load(ordering: .sequentiallyConsistent)
            if advanceEpoch(from: start) { advanceEpoch(from: start &+ 1) }
            let current = epoch.load(ordering: .sequentiallyConsistent)
            list.removeAll { entry in
                guard current &- entry.epoch >= 2 else { return false }
                released.append(entry.object)
                return true
            }
            return list.isEmpty
        }
        // Released here, outside the lock: a value's deinit is user code.
        released.removeAll()
        return empty
    }

    /// Moves the epoch from `current` to the next one, unless readers counted under the previous epoch's
    /// parity are still inside (they would keep objects retired then alive). The caller holds the lock of
    /// the retired list, under which alone the epoch moves.
    @discardableResult
    private func advanceEpoch(from current: UInt) -> Bool {
        guard readers(parity: Int((current &+ 1) & 1)) == 0 else { return false }
        epoch.store(current &+ 1, ordering: .sequentiallyConsistent)
        return true
    }

    private func readers(parity: Int) -> Int {
        var total = 0
        for stripe in 0..<ReadDomain.stripes {
            total &+=
                (counters + (stripe * ReadDomain.stride + parity)).pointee.load(ordering: .sequentiallyConsistent)
        }
        return total
    }

    /// Gives the processor to another thread for a moment (spin-waits of the library use it).
    static func yieldThread() {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        sched_yield()
        #endif
    }
}
