// `locale` and `timeZone`: read from LC_ALL/LANG and TZ on first read, with fixed fallbacks for bad values.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - Locale and time zone

extension ContextValues {
    /// The locale: from `LC_ALL`, else `LC_MESSAGES`, else `LANG` (`de_DE.UTF-8` reads as `de_DE`), at
    /// the first read unless set. Unset, empty, `C`, `POSIX` or malformed values give `en_US_POSIX`, the
    /// locale of a test context.
    ///
    /// ```swift
    /// let language = Context.current[\.locale].language.languageCode  // "de" under LANG=de_DE.UTF-8
    /// ```
    public var locale: Locale {
        get { self[LocaleKey.self] }
        set { self[LocaleKey.self] = newValue }
    }

    /// The time zone: from `TZ` (`Europe/Paris`, `:Europe/Paris`, `UTC`) at the first read unless set;
    /// the system's when `TZ` is unset or empty; GMT when `TZ` is not a known identifier, and in a test
    /// context.
    ///
    /// ```swift
    /// let zone = Context.current[\.timeZone].identifier  // "Europe/Paris" under TZ=Europe/Paris
    /// ```
    public var timeZone: TimeZone {
        get { self[TimeZoneKey.self] }
        set { self[TimeZoneKey.self] = newValue }
    }
}

/// The key of ``ContextValues/locale``.
enum LocaleKey: ContextKey {
    static var defaultValue: Locale { locale(from: EnvironmentVariables.process) }
    static var testValue: Locale {
        InternationalizationSupport.load()
        return Locale(identifier: "en_US_POSIX")
    }

    /// The locale that `environment` names, or `en_US_POSIX`.
    static func locale(from environment: EnvironmentVariables) -> Locale {
        InternationalizationSupport.load()
        let name = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let name, let identifier = identifier(fromPOSIX: name) else { return testValue }
        return Locale(identifier: identifier)
    }

    /// `de_DE` for `de_DE.UTF-8@euro`; nil for `C`, `POSIX` and anything not `ll[_RR]`.
    static func identifier(fromPOSIX name: String) -> String? {
        let base = name.prefix { $0 != "." && $0 != "@" }
        let parts = base.split(separator: "_", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let language = parts[0]
        guard (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        if parts.count == 2 {
            let region = parts[1]
            guard (2...3).contains(region.count), region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            else { return nil }
        }
        return String(base)
    }
}

/// The key of ``ContextValues/timeZone``.
enum TimeZoneKey: ContextKey {
    static var defaultValue: TimeZone { timeZone(from: EnvironmentVariables.process) }
    static var testValue: TimeZone { gmt }

    static var gmt: TimeZone {
        InternationalizationSupport.load()
        return TimeZone(secondsFromGMT: 0) ?? TimeZone.gmt
    }

    /// The time zone that `environment`'s `TZ` names, the system's without one, or GMT.
    static func timeZone(from environment: EnvironmentVariables) -> TimeZone {
        InternationalizationSupport.load()
        guard var name = environment["TZ"], !name.isEmpty else { return TimeZone.current }
        if name.hasPrefix(":") { name.removeFirst() }
        if name == "UTC" || name == "GMT" || name == "UTC0" || name == "GMT0" { return gmt }
        guard name.utf8.count < 256, !name.contains(".."), let zone = TimeZone(identifier: name) else { return gmt }
        return zone
    }
}
