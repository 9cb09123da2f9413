// The typed boxes entries are stored in, read back without a dynamic cast.
// Architecture: ARCHITECTURE.md, "Tables: FrozenTable and TableStorage".

// MARK: - ContextBox

/// A type-erased, immutable box around one stored entry: a value, or a provider that builds one.
///
/// Values are kept in typed boxes so that reading one back needs no dynamic cast from `Any`: the storage
/// identity of an entry fixes the type of its box, so the reader downcasts without a check. A provider's
/// box is told apart by the low bit of the address the tables store (``addressTag``), so that reading a
/// plain value costs one bit test more than an untagged table would.
@usableFromInline
protocol ContextBox: AnyObject, Sendable {
    /// The key type or object type this entry is stored under, for diagnostics.
    var entryType: Any.Type { get }
    /// 1 for a provider's box, 0 for a value's.
    var addressTag: UInt { get }
    /// What this entry is, for ``Context/wiringDescription``: e.g. `value of type Config`.
    var entryDescription: String { get }
    /// Whether this box holds what `other` holds: the same box, the same object, or an equal
    /// `Equatable` value. Replacing one by the other is no change for observers.
    func holdsSameValue(as other: any ContextBox) -> Bool
}

extension ContextBox {
    @usableFromInline
    func holdsSameValue(as other: any ContextBox) -> Bool { other === self }
}

// MARK: - ValueBox

/// The box for a value of type `Value`.
@usableFromInline
final class ValueBox<Value: Sendable>: ContextBox {
    @usableFromInline
    let value: Value
    @usableFromInline
    let entryType: Any.Type

    @inlinable
    init(_ value: Value, entry: Any.Type = Value.self) {
        self.value = value
        self.entryType = entry
    }

    @usableFromInline
    var addressTag: UInt { 0 }

    @usableFromInline
    var entryDescription: String { "value of type \(TypeMetadata.name(of: Value.self))" }

    @usableFromInline
    func holdsSameValue(as other: any ContextBox) -> Bool {
        if other === self { return true }
        guard let other = other as? ValueBox<Value> else { return false }
        return isSameValue(value, other.value)
    }
}

// MARK: - Comparing values

/// Whether `first` and `second` are the same: the same object for class instances (an object changes
/// only when a different one is set, whatever its `==` says), else equal when the type is `Equatable`;
/// optionals compare what they wrap. Other values (closures, say) are never the same.
@usableFromInline
func isSameValue(_ first: Any, _ second: Any) -> Bool {
    if let first = first as? any OptionalValue, let second = second as? any OptionalValue {
        switch (first.wrappedAny, second.wrappedAny) {
        case (nil, nil): return true
        case (let first?, let second?): return isSameValue(first, second)
        default: return false
        }
    }
    if type(of: first) is AnyClass {
        return type(of: second) is AnyClass && (first as AnyObject) === (second as AnyObject)
    }
    guard let equatable = first as? any Equatable else { return false }
    return equatable.isEqual(to: second)
}

/// An optional, seen through `Any`.
protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? { map { $0 as Any } }
}

extension Equatable {
    /// Whether `other` is a `Self` equal to this value.
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

// MARK: - Reading a box

/// The value in the box at address `raw`, read as `Value` without touching reference counts.
///
/// - Precondition: `raw` is the untagged address of a live `ValueBox<Value>`. Every caller found it under
///   a ``StorageID`` derived from the same type that fixes `Value`, so the unchecked cast is safe.
@inlinable
func unboxValue<Value: Sendable>(_ raw: UInt, as type: Value.Type) -> Value {
    // Safe: see the precondition above.
    ReferenceWord.withInstance(raw, as: ValueBox<Value>.self) { $0.value }
}

/// The address of `box` as the tables store it: tagged with 1 in the low bit for a provider.
func address(of box: any ContextBox) -> UInt {
    ReferenceWord.unretained(box as AnyObject) | box.addressTag
}

// MARK: - Kept words

/// Whether a word made by ``keptWord(_:)`` for `Value` holds the instance itself: `Value` is a class, whose
/// instances need no box (folded to a constant where `Value` is known).
@inlinable
func keepsInstanceDirectly<Value>(_ type: Value.Type) -> Bool {
    type is AnyObject.Type
}

/// `value` kept in one word, retained: a class instance as itself, anything else in a ``ValueBox``. A
/// built object is kept this way: most objects are classes, and a box would be one more allocation for
/// each one a request builds.
@inlinable
func keptWord<Value: Sendable>(_ value: Value) -> UInt {
    if let object = classReference(value) { return ReferenceWord.retained(object) }
    return ReferenceWord.retained(ValueBox(value))
}

/// The value in a word made by ``keptWord(_:)`` for the same `Value`.
///
/// - Precondition: `word` was made by ``keptWord(_:)`` for `Value` and is still retained.
@inlinable
func keptValue<Value: Sendable>(_ word: UInt, as type: Value.Type) -> Value {
    if keepsInstanceDirectly(Value.self) {
        // Safe: the word holds an instance of the class `Value` (see the precondition).
        return ReferenceWord.withInstance(word, as: AnyObject.self) { unsafeBitCast($0, to: Value.self) }
    }
    return unboxValue(word, as: Value.self)
}

/// `value` as the reference it is, when `Value` is a class (folded to a constant where `Value` is
/// known), else nil: for code that needs an `AnyObject` without the dynamic cast of `as AnyObject`.
@inlinable
func classReference<Value>(_ value: Value) -> AnyObject? {
    guard keepsInstanceDirectly(Value.self) else { return nil }
    // Safe: `Value` is a class, so `value` is one reference, which is what an `AnyObject` is.
    return unsafeBitCast(value, to: AnyObject.self)
}
