// `InternationalizationSupport`: loads Foundation's locale data when a locale or a time zone is first read.
// Architecture: ARCHITECTURE.md, "Primitives".

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - InternationalizationSupport

/// Loads `FoundationInternationalization` (Foundation's locales and time zones, backed by ICU) into the
/// process the first time a context reads ``ContextValues/locale`` or ``ContextValues/timeZone``.
///
/// The library imports `FoundationEssentials` only, so that a program that never reads either key does
/// not load Foundation, FoundationInternationalization or ICU's data. `FoundationEssentials` alone knows
/// no locale but `en_001` and no time zone but GMT; it uses the ICU-backed ones once
/// FoundationInternationalization is loaded, which is what this does, once, by name, before the first
/// locale or time zone is made. Where it is not shipped beside the program, or the program links the
/// Swift libraries statically (`--static-swift-stdlib`: import Foundation in the program to get them),
/// the keys read as `FoundationEssentials` makes them. On Darwin, Foundation has them already.
///
/// ```swift
/// InternationalizationSupport.load()
/// let zone = TimeZone(identifier: "Europe/Paris")  // a real time zone, not nil
/// ```
enum InternationalizationSupport {
    /// Whether Foundation's locales and time zones are available, after loading them on first use.
    private static let isLoaded: Bool = {
        #if canImport(Darwin)
        true
        #else
        // Only beside a FoundationEssentials loaded as a shared library: a program linked with the Swift
        // libraries statically (`--static-swift-stdlib`) would get a second copy of them.
        guard dlopen("libFoundationEssentials.so", RTLD_NOW | RTLD_NOLOAD) != nil else { return false }
        return dlopen("libFoundationInternationalization.so", RTLD_NOW | RTLD_GLOBAL) != nil
        #endif
    }()

    /// Loads FoundationInternationalization unless it was; thread-safe, and a load after the first.
    static func load() {
        _ = isLoaded
    }
}
