// A boot report in a file: a baseline loaded from its path, a report written to one, each failure told in words.

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

// MARK: - Files

extension BootReport {
    /// Loads a baseline report from the file at `path`, as ``init(json:source:)`` reads its text.
    ///
    /// ```swift
    /// let baseline = try BootReport(contentsOfFile: "boot-baseline.json")
    /// let comparison = try report.compared(to: baseline)
    /// ```
    ///
    /// A relative path is read from the working directory.
    ///
    /// - Parameter path: The path of the file, as ``write(toFile:)`` wrote it.
    /// - Throws: ``ContextError/Code/bootReportFileFailed`` when the file cannot be read: there is no such
    ///   file, it is not readable (permission denied), or it is a directory; the message names the path
    ///   and says how to record a baseline there. ``ContextError/Code/incompatibleBootReport`` when the file
    ///   is empty, is not a boot report (the message names the field at fault when there is one), is in
    ///   another format version, or breaks a rule of the format, as ``init(json:source:)`` says.
    ///
    /// - Complexity: O(*n* + *p* + *e*) for a file of *n* bytes, *p* providers and *e* edges.
    public init(contentsOfFile path: String) throws(ContextError) {
        // Read with POSIX calls: FoundationEssentials' `Data(contentsOf:)` leaks its buffer when the read
        // fails (a missing file, a directory), which LeakSanitizer reports.
        let data: Data
        do {
            data = try Self.readFile(at: path)
        } catch {
            throw ContextError.bootReportFile(path, writing: false, error: error)
        }
        try self.init(data: data, origin: .file(path))
    }

    /// Writes the report's ``json`` to the file at `path`, replacing it as a whole: a reader never finds
    /// it half written. Record a baseline this way, and commit it.
    ///
    /// ```swift
    /// let report = await app.bootReport()
    /// try report.write(toFile: "boot-baseline.json")
    /// ```
    ///
    /// A relative path is written from the working directory; the directory must exist.
    ///
    /// - Parameter path: The path of the file; ``init(contentsOfFile:)`` reads it back.
    /// - Throws: ``ContextError/Code/bootReportFileFailed`` when the file cannot be written: its directory
    ///   does not exist, permission is denied, the path is a directory, or the disk is full or read-only.
    ///   The message names the path and the fix.
    public func write(toFile path: String) throws(ContextError) {
        do {
            try Data(json.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ContextError.bootReportFile(path, writing: true, error: error)
        }
    }

    /// The bytes of the file at `path`, or the `POSIXError` of the call that failed.
    private static func readFile(at path: String) throws(POSIXError) -> Data {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { return Data(bytes) }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
