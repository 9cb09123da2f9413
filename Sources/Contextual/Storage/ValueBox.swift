// MARK: - ContextBox

/// A type-erased, immutable box around one stored value.
///
/// Values are kept in typed boxes so that reading one back needs no dynamic cast from `Any`: the storage
/// identity of an entry fixes the type of its box, so the reader downcasts without a check.
@usableFromInline
protocol ContextBox: AnyObject, Sendable {
    /// The static type of the stored value, for diagnostics.
    var valueType: Any.Type { get }
    /// The stored value, for diagnostics only (never on the read path).
    var anyValue: any Sendable { get }
}

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

    @usableFromInline
    var valueType: Any.Type { Value.self }
    @usableFromInline
    var anyValue: any Sendable { value }
}

extension ContextBox {
    /// Reads the value back as `Value`.
    ///
    /// - Precondition: the box was created for `Value`. Every caller looks the box up by a ``StorageID``
    ///   derived from the same type that fixes `Value`, so the unchecked cast is safe.
    @inlinable
    func unsafeValue<Value: Sendable>(as type: Value.Type) -> Value {
        // Safe: the storage identity this box was found under determines `Value` (see above).
        unsafeDowncast(self, to: ValueBox<Value>.self).value
    }
}
