import Synchronization

// MARK: - LazyReference

/// A reference set at most once, read with one atomic load: like `AtomicLazyReference`, whose `load()`
/// is not specialized across modules (a generic metadata lookup and a retain on every call), which the
/// read path cannot afford.
@usableFromInline
struct LazyReference<Instance: AnyObject>: ~Copyable, Sendable {
    /// The bit pattern of an `Unmanaged<Instance>` this reference holds +1, or 0.
    @usableFromInline
    let bits = Atomic<UInt>(0)

    @usableFromInline
    init() {}

    deinit {
        let bits = bits.load(ordering: .acquiring)
        if bits != 0 { Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
    }

    /// Whether the reference was set.
    @inlinable
    var isSet: Bool { bits.load(ordering: .acquiring) != 0 }

    /// Runs `body` on the instance, if set, without retaining it: it lives as long as this reference.
    @inlinable
    func withInstance<Result>(_ body: (Instance) -> Result) -> Result? {
        let bits = bits.load(ordering: .acquiring)
        if bits == 0 { return nil }
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef(body)
    }

    /// The instance, if set.
    func load() -> Instance? {
        let bits = bits.load(ordering: .acquiring)
        if bits == 0 { return nil }
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
    }

    /// Sets the instance unless it was set, and returns the instance that is set.
    func storeIfNil(_ instance: Instance) -> Instance {
        let new = Unmanaged.passRetained(instance)
        let (exchanged, current) = bits.compareExchange(
            expected: 0,
            desired: UInt(bitPattern: new.toOpaque()),
            ordering: .acquiringAndReleasing
        )
        if exchanged { return instance }
        new.release()
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: current)!).takeUnretainedValue()
    }
}
