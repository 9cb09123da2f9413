// `shutdownFailureHandler`: where the failures of shutdowns that no `shutdown()` call can throw go.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Shutdown failure handler

extension ContextValues {
    /// Receives the failure of a shutdown that no call of ``Context/shutdown()`` can throw any more: an
    /// object whose build a scope's shutdown stopped waiting for (at ``buildWaitLimit``, or because the
    /// task was cancelled), shut down when its build ended; an object taken over by a scope whose
    /// shutdown was already over; and a ``RequestScope`` ended where no response can carry the failure
    /// (``RequestScope/endAfterResponse()``, ``RequestScope/runThenEnd(isolation:_:)``) or dropped with
    /// holds left. The error is a ``ContextError/Code/shutdownFailed`` naming the object
    /// and the scope, with what it threw in ``ContextError/underlyingErrors``. By default its message is
    /// written to standard error; set it on the root to send it to the app's logger.
    ///
    /// ```swift
    /// let app = Context(name: "app") {
    ///     $0.shutdownFailureHandler = { error in logger.error("\(error)") }
    /// }
    /// ```
    ///
    /// The handler that applies is the one the scope sees. It runs on the task that shuts the object
    /// down.
    public var shutdownFailureHandler: @Sendable (ContextError) -> Void {
        get { self[ShutdownFailureHandlerKey.self] }
        set { self[ShutdownFailureHandlerKey.self] = newValue }
    }
}

/// The key of ``ContextValues/shutdownFailureHandler``.
enum ShutdownFailureHandlerKey: ContextKey {
    static var defaultValue: @Sendable (ContextError) -> Void { { error in writeToStandardError("\(error)\n") } }
}

/// Writes `text` to standard error (file descriptor 2), unbuffered.
private func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}

// MARK: - Late shutdowns

extension Context {
    /// Shuts down `objects` (last first), built for this scope after its shutdown was over, each failure
    /// going to this scope's ``ContextValues/shutdownFailureHandler``; in a task of its own.
    func shutDownLate(_ objects: [(label: String, object: any ScopeShutdown)]) {
        if objects.isEmpty { return }
        Task {
            var failures: [(label: String, error: any Error)] = []
            for (label, object) in objects.reversed() {
                do {
                    try await object.shutdown()
                } catch {
                    failures.append((label, error))
                }
            }
            if !failures.isEmpty {
                self[\.shutdownFailureHandler](ContextError.shutdownFailed(failures, of: objects.count, in: self))
            }
        }
    }
}
