// What LeakSanitizer leaves out of its report at the test process's exit (`swift test --sanitize=address`):
// what it takes for a leak wrongly, and the toolchain's own, never an object of the library or the tests.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The suppressions LeakSanitizer reads from the process it checks, in its own format (`leak:PATTERN`, a
/// pattern matched against the functions and modules of an allocation's stack):
///
/// - `libXCTest.so`: `swift test` runs XCTest's runner (with no test here) before Swift Testing, and the
///   runner keeps its suite objects until exit, which LeakSanitizer reports and fails the run on.
/// - `formWeakReference`: a weak reference's side table, allocated there, is reachable only through its
///   object's header, which holds its address shifted; LeakSanitizer does not read that as a pointer. A
///   leaked object is still reported: its own allocation is not suppressed.
///
/// Outside a sanitizer, nothing calls it.
@_cdecl("__lsan_default_suppressions")
public func leakSanitizerDefaultSuppressions() -> UnsafePointer<CChar>? {
    UnsafePointer(leakSuppressions)
}

/// The text of the suppressions, allocated once and kept (a global holds it: nothing leaks).
nonisolated(unsafe) private let leakSuppressions = strdup("leak:libXCTest.so\nleak:formWeakReference\n")
