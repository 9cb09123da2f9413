// A context's values as it reads them, lent to a read without being copied.
// Architecture: ARCHITECTURE.md, "The read path".

// MARK: - Reader view

extension ContextValues {
    /// The offset of ``origin`` in the values' layout: after the two tables, as the stored properties are
    /// declared (a struct's are laid out in order). A constant rather than
    /// `MemoryLayout.offset(of: \.origin)`, which a `static let` would compute once but then check for
    /// initialization on every read; a test checks that the two agree.
    @inlinable
    static var originOffset: Int { MemoryLayout<FrozenTable>.stride &* 2 }

    /// Runs `body` on `values` as `reader` reads them (with `reader` as their origin, for the providers
    /// found in them), without copying them: a copy would retain and release their five references, a
    /// fifth of a first read in a chain with providers.
    ///
    /// `body` gets a bitwise view of `values` whose origin is `reader`, which holds no reference of its
    /// own and is never destroyed: both are alive for the call (the caller holds `values` and `reader`),
    /// and a copy `body` makes (a getter that returns `self`) retains what it copies, as any copy does.
    ///
    /// ```swift
    /// ContextValues.withView(of: initial, readBy: self) { $0[keyPath: keyPath] }
    /// ```
    ///
    /// - Precondition: `values` has no origin (stored values never do); `body` only reads the values it is
    ///   lent (see ``withValues(at:_:)``).
    @inlinable @inline(__always)
    static func withView<Result>(
        of values: borrowing ContextValues,
        readBy reader: Context,
        _ body: (inout ContextValues) throws -> Result
    ) rethrows -> Result {
        assert(values.origin == nil, "a view of values that already name their reader")
        return try withUnsafePointer(to: values) { source in
            try withValues(at: source) { view in
                // The origin, unretained, over the `nil` copied from `values` (a trivial word either way):
                // the view owns none of the references it holds.
                withUnsafeMutableBytes(of: &view) { bytes in
                    bytes.storeBytes(
                        of: Unmanaged.passUnretained(reader),
                        toByteOffset: originOffset,
                        as: Unmanaged<Context>.self
                    )
                }
                return try body(&view)
            }
        }
    }

    /// The value at `keyPath` of `values`, read without copying them.
    ///
    /// `values[keyPath: keyPath]` copies `values` first (a key path is applied to a value it owns), even
    /// where the compiler turns the key path into a direct call of the property's getter: five retains and
    /// five releases, more than the read. Read through ``withValues(at:_:)`` instead. Always inlined, so
    /// that a literal key path still becomes a direct getter call.
    ///
    /// ```swift
    /// ContextValues.value(at: \.logger, of: initial)
    /// ```
    @inlinable @inline(__always)
    static func value<Value>(at keyPath: KeyPath<ContextValues, Value>, of values: borrowing ContextValues) -> Value {
        withUnsafePointer(to: values) { pointer in withValues(at: pointer) { $0[keyPath: keyPath] } }
    }

    /// Runs `body` on the values at `pointer` without copying them: on a bitwise view of them, in memory
    /// of the call's own, which owns none of the references it holds and is never destroyed.
    ///
    /// Values passed from a pointer's `pointee` are copied first (the compiler cannot prove that nothing
    /// writes them during the call): five retains and five releases, more than a read itself. Lent as
    /// `inout`, they are not; and lent from memory of the call's own, not from `pointer`'s, which other
    /// threads read at the same time (an `inout` access to it would be a write, which ThreadSanitizer
    /// reports as a race between readers).
    ///
    /// ```swift
    /// ContextValues.withValues(at: read.values) { $0[keyPath: keyPath] }
    /// ```
    ///
    /// - Precondition: the values at `pointer` stay alive for the call (the caller holds them), and
    ///   `body` only reads the values it is lent: it must not assign them or any of their properties (a
    ///   copy it makes retains what it copies, as any copy does).
    @inlinable @inline(__always)
    static func withValues<Result>(
        at pointer: UnsafePointer<ContextValues>,
        _ body: (inout ContextValues) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: ContextValues.self, capacity: 1) { buffer in
            // Safe: a one-element allocation has a base address.
            let view = UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped)
            view.copyMemory(from: pointer, byteCount: MemoryLayout<ContextValues>.size)
            // Not deinitialized afterwards: the view owns none of the references it holds.
            return try body(&view.assumingMemoryBound(to: ContextValues.self).pointee)
        }
    }
}
