// `KeyPathShape`: whether a key path is one property of its root, learned once per key path.
// Architecture: ARCHITECTURE.md, "Key-path writes".

// MARK: - KeyPathShape

/// Whether a key path of ``ContextValues`` is one property of the values (`\.level`) rather than a path
/// through one (`\.limits.timeout`, `\.endpoint?.host`): an assignment through a single property replaces
/// the value its getter reads, so that read may be given the value assigned (see
/// ``ContextValues/assign(_:at:)``); through a longer path, the value read is what the rest of the path
/// changes part of.
///
/// Learned from the key path's description (`\ContextValues.<computed … (Int)>` or
/// `\ContextValues.level`, `….timeout` for each further component, `?` and `!` for optional chaining),
/// which costs thousands of instructions: once per key path, kept in a small process-wide table behind
/// a lock. Asked only when an assignment's getter reads, which a build that knows the key path where it
/// applies it never does.
///
/// No toolchain promises that format, so the parser is first checked against key paths whose shape is
/// known (``probesAreReadCorrectly``): one property, paths through a stored and a computed property, a
/// path through a property of the same type as the value (the one a misreading would get wrong), optional
/// chaining and force unwrapping. If any is misread, every key path is "not one property" on this
/// toolchain: an assignment then reads the value it replaces, as a plain key-path assignment does, and
/// is never given a wrong value.
///
/// ```swift
/// KeyPathShape.isSingleProperty(\ContextValues.verbosity)     // true
/// KeyPathShape.isSingleProperty(\ContextValues.limits.timeout) // false
/// ```
enum KeyPathShape {
    /// The shapes learned, by key path identity, with the key path kept (so that its identity is not
    /// reused while it is here). Cleared when full: a program that makes key paths at run time without
    /// end learns theirs again.
    private static let learned = Locked<[ObjectIdentifier: (keyPath: AnyKeyPath, isSingle: Bool)]>.make([:])
    private static let capacity = 256

    /// Whether this toolchain's key path descriptions read as the parser expects, checked once.
    static let descriptionsAreUnderstood = probesAreReadCorrectly(by: isSingleProperty(description:root:))

    /// Whether `keyPath` is one property of its root.
    static func isSingleProperty(_ keyPath: AnyKeyPath) -> Bool {
        isSingleProperty(keyPath, trustingDescriptions: descriptionsAreUnderstood)
    }

    /// Whether `keyPath` is one property of its root, as its description says when `trustingDescriptions`
    /// (the parser read every probe right); else never.
    static func isSingleProperty(_ keyPath: AnyKeyPath, trustingDescriptions: Bool) -> Bool {
        guard trustingDescriptions else { return false }
        let id = ObjectIdentifier(keyPath)
        if let known = learned.withLock({ $0[id]?.isSingle }) { return known }
        let isSingle = isSingleProperty(description: keyPath.debugDescription, root: root)
        learned.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[id] = (keyPath, isSingle)
        }
        return isSingle
    }

    // MARK: - Reading a description

    /// How the description of a key path of ``ContextValues`` starts.
    static let root = "\\ContextValues"

    /// Whether `description`, a key path's `debugDescription` starting with `root`, names one component
    /// after it: one `.` outside brackets (a computed component reads `<computed 0x… (Type)>`, whose type
    /// may hold dots and arrows), and no optional chaining or force unwrapping.
    static func isSingleProperty(description: String, root: String) -> Bool {
        guard description.hasPrefix(root) else { return false }
        var depth = 0
        var components = 0
        var previous: Character = " "
        for character in description.dropFirst(root.count) {
            switch character {
            case "<", "(", "[": depth += 1
            case ">" where previous != "-", ")", "]": depth -= 1
            case "." where depth == 0: components += 1
            case "?" where depth == 0, "!" where depth == 0: return false
            default: break
            }
            previous = character
        }
        return components == 1 && depth == 0
    }

    // MARK: - Checking the parser

    /// Whether `parser` (a description and its root in, "one property" out) reads every probe key path
    /// as the shape it has.
    static func probesAreReadCorrectly(by parser: (_ description: String, _ root: String) -> Bool) -> Bool {
        let singles: [AnyKeyPath] = [
            \ContextValues.shapeProbe, \ContextValues.optionalShapeProbe, \ContextValues.closureShapeProbe,
        ]
        let paths: [AnyKeyPath] = [
            \ContextValues.shapeProbe.part, \ContextValues.shapeProbe.computedPart, \ContextValues.shapeProbe.items[0],
            \ContextValues.shapeProbe.sameType, \ContextValues.shapeProbe.sameType.part,
            \ContextValues.optionalShapeProbe?.part, \ContextValues.optionalShapeProbe!,
            \ContextValues.optionalShapeProbe!.part,
        ]
        return singles.allSatisfy { parser($0.debugDescription, root) }
            && paths.allSatisfy { !parser($0.debugDescription, root) }
    }
}

// MARK: - Probes

/// A value whose key paths from ``ContextValues`` have known shapes; never stored or applied.
struct KeyPathShapeProbe {
    var part = 0
    var items = [0]

    var computedPart: Int {
        get { part }
        set { part = newValue }
    }

    /// A property of the probe's own type: `\.shapeProbe.sameType` is the path a misread description
    /// would take for one property.
    var sameType: KeyPathShapeProbe {
        get { self }
        set { self = newValue }
    }
}

extension ContextValues {
    fileprivate var shapeProbe: KeyPathShapeProbe {
        get { KeyPathShapeProbe() }
        set {}
    }

    fileprivate var optionalShapeProbe: KeyPathShapeProbe? {
        get { nil }
        set {}
    }

    fileprivate var closureShapeProbe: (Int) -> Int {
        get { { $0 } }
        set {}
    }
}
