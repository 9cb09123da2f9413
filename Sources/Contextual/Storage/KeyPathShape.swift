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

    /// Whether `keyPath` is one property of its root.
    static func isSingleProperty(_ keyPath: AnyKeyPath) -> Bool {
        let id = ObjectIdentifier(keyPath)
        if let known = learned.withLock({ $0[id]?.isSingle }) { return known }
        let isSingle = isSingleProperty(description: keyPath.debugDescription, root: "\\ContextValues")
        learned.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[id] = (keyPath, isSingle)
        }
        return isSingle
    }

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
}
