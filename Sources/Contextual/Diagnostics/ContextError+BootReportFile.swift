// The errors of a boot report's file: what the system refused when reading or writing it, in words.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Boot report file errors

extension ContextError {
    /// The file at `path` could not be read (a baseline being loaded) or written, for the system's `error`.
    static func bootReportFile(_ path: String, writing: Bool, error: any Error) -> ContextError {
        let problem = writing ? writeProblem(path, posixCode(of: error)) : readProblem(path, posixCode(of: error))
        let asked =
            writing
            ? "could not write the boot report to '\(path)'"
            : "could not load the baseline boot report from '\(path)'"
        return ContextError(
            code: .bootReportFileFailed,
            requestedType: "BootReport",
            searchedContexts: [],
            message: "\(asked): \(problem)",
            underlyingErrors: [error]
        )
    }

    // MARK: - Problems in words

    /// What went wrong reading `path`, and the fix.
    private static func readProblem(_ path: String, _ code: POSIXErrorCode?) -> String {
        let recording =
            "make a report of the context with `bootReport()` and write it there with "
            + "`try report.write(toFile: \"\(path)\")`, then commit it"
        switch code {
        case .ENOENT?:
            return "there is no such file\(workingDirectoryNote(path)). Fix: record the baseline first: "
                + "\(recording); or give the path of the existing baseline."
        case .EACCES?, .EPERM?:
            return "the file is not readable: permission denied (on the file, or on a directory of its path). "
                + "Fix: let the user running this read it (`chmod a+r '\(path)'`, and `a+x` on its directories), "
                + "or give the path of a readable copy."
        case .EISDIR?:
            return "it is a directory, not a file. Fix: give the path of the baseline's file in it, e.g. "
                + "'\(path)/boot-baseline.json'."
        case .ENOTDIR?:
            return "a part of the path before the file's name is a file, not a directory. Fix: give the path "
                + "of the baseline's file."
        default:
            return "\(systemProblem(code, reading: true)). Fix: check the file and its disk; if the baseline is "
                + "lost, \(recording)."
        }
    }

    /// What went wrong writing `path`, and the fix.
    private static func writeProblem(_ path: String, _ code: POSIXErrorCode?) -> String {
        let directory = directoryName(path)
        switch code {
        case .ENOENT?:
            return "the directory '\(directory)' does not exist\(workingDirectoryNote(path)). Fix: create it "
                + "first, or give a path in an existing directory."
        case .EACCES?, .EPERM?:
            return "permission denied: this process may not write the file in '\(directory)'. Fix: give the "
                + "user running this write permission on the directory, or give another path."
        case .EISDIR?:
            return "it is a directory, not a file. Fix: give the path of a file in it, e.g. "
                + "'\(path)/boot-baseline.json'."
        case .ENOTDIR?:
            return "a part of the path before the file's name is a file, not a directory. Fix: give the path "
                + "of a file in an existing directory."
        case .EROFS?:
            return "the file system is read-only. Fix: give a path on a writable disk."
        case .ENOSPC?, .EDQUOT?:
            return "the disk is full. Fix: free some space, or give a path on another disk."
        default:
            return "\(systemProblem(code, reading: false)). Fix: check the path and its disk."
        }
    }

    /// The system's words for `code`, when no case above names it.
    private static func systemProblem(_ code: POSIXErrorCode?, reading: Bool) -> String {
        let verb = reading ? "read" : "write"
        guard let code else { return "the system could not \(verb) it" }
        return "the system could not \(verb) it: \(String(cString: strerror(code.rawValue))) (errno \(code.rawValue))"
    }

    /// The error number behind a file error of the system, whichever form it takes.
    private static func posixCode(of error: any Error) -> POSIXErrorCode? {
        if let error = error as? POSIXError { return error.code }
        guard let error = error as? CocoaError else { return nil }
        if let underlying = error.underlying as? POSIXError { return underlying.code }
        switch error.code {
        case .fileReadNoSuchFile, .fileNoSuchFile: return .ENOENT
        case .fileReadNoPermission, .fileWriteNoPermission: return .EACCES
        case .fileWriteVolumeReadOnly: return .EROFS
        case .fileWriteOutOfSpace: return .ENOSPC
        default: return nil
        }
    }

    /// For a relative path, where it is read from: the working directory.
    private static func workingDirectoryNote(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return "" }
        return " (a relative path, from the working directory '\(FileManager.default.currentDirectoryPath)')"
    }

    /// The directory of `path`: what comes before its last slash, or "." for a name alone.
    private static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
