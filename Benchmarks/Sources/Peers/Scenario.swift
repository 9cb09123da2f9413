// MARK: - Scenario

/// One piece of work, done by one system, `iterations` times.
public struct Scenario: Sendable {
    /// The scenario group, e.g. "warm resolve (root)".
    public let group: String
    /// Who does it: one of ``System``.
    public let system: System
    /// Sets up what the work needs (outside any measurement) and returns the work, which runs
    /// `iterations` times.
    public let prepare: @Sendable () -> @Sendable (Int) -> Void

    public init(_ group: String, _ system: System, prepare: @escaping @Sendable () -> @Sendable (Int) -> Void) {
        self.group = group
        self.system = system
        self.prepare = prepare
    }

    /// A scenario that needs no set-up.
    public init(_ group: String, _ system: System, run: @escaping @Sendable (Int) -> Void) {
        self.init(group, system, prepare: { run })
    }

    /// The name package-benchmark shows, e.g. "warm resolve (root) · Contextual".
    public var name: String { "\(group) · \(system.rawValue)" }

    /// The name package-benchmark measures this scenario under, which also names its thresholds file:
    /// ``name`` in ASCII letters, digits and `_` only ("@Injected by type, root · Contextual" is
    /// `Injected_by_type_root_Contextual`). package-benchmark 1.38.1 writes thresholds under a name with
    /// spaces turned into `_` but reads them back under the name as given, so a name with a space would
    /// never be checked; punctuation made file names that shells and CI mangle.
    public var benchmarkName: String { Scenario.benchmarkName(of: name) }

    /// ``benchmarkName`` for a scenario named `name`.
    public static func benchmarkName(of name: String) -> String {
        var result = ""
        for character in name {
            if character.isASCII && (character.isLetter || character.isNumber) {
                result.append(character)
            } else if !result.isEmpty && result.last != "_" {
                result.append("_")
            }
        }
        while result.last == "_" { result.removeLast() }
        return result
    }
}

/// The systems compared, in table order.
public enum System: String, Sendable, CaseIterable {
    case contextual = "Contextual"
    case dependencies = "swift-dependencies"
    case swinject = "Swinject"
    case storedProperty = "stored property"
    case dictionary = "dictionary + cast"
    /// OpenCombine's `@Published` and `sink`: the peer of a notification (target e).
    case openCombine = "OpenCombine"
    /// The toolchain's `Observation` (`@Observable`): the peer of an unobserved write and read (target e).
    case observation = "Observation"

    /// The columns of contextual-compare's timed table: the systems of its scenarios. OpenCombine and
    /// Observation appear only in the instruction counts (`contextual-count`).
    public static let timed: [System] = [.contextual, .dependencies, .swinject, .storedProperty, .dictionary]
}

/// Keeps a value from being optimized away: an opaque call the optimizer may not look into.
@inline(never)
@_optimize(none)
public func consume<T>(_ value: T) {}
