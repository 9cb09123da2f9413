// MARK: - ContextBox

/// A type-erased, immutable box around one stored value.
///
/// Values are kept in typed boxes so that reading one back needs no dynamic cast from `Any`: the storage
/// identity of an entry fixes the type of its box, so the reader downcasts without a check.
@usableFromInline
protocol ContextBox: AnyObject, Sendable {}

// MARK: - ValueBox

/// The box for a value of type `Value`.
@usableFromInline
final class ValueBox<Value: Sendable>: ContextBox {
    @usableFromInline
    let value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}

// MARK: - Reading a box

/// The value in the box at address `raw`, read as `Value` without touching reference counts.
///
/// - Precondition: `raw` is the address of a live `ValueBox<Value>`. Every caller found it under a
///   ``StorageID`` derived from the same type that fixes `Value`, so the unchecked cast is safe.
@inlinable
func unboxValue<Value: Sendable>(_ raw: UInt, as type: Value.Type) -> Value {
    // Safe: see the precondition above.
    Unmanaged<ValueBox<Value>>.fromOpaque(UnsafeRawPointer(bitPattern: raw)!)._withUnsafeGuaranteedRef { $0.value }
}

/// The address of `box`, as the tables store it.
func address(of box: any ContextBox) -> UInt {
    UInt(bitPattern: Unmanaged.passUnretained(box as AnyObject).toOpaque())
}
