// `WindowSizeSignal`: the process's SIGWINCH handler, installed once and chained to any earlier one.
// Architecture: ARCHITECTURE.md, "Primitives".

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - WindowSizeSignal

/// The SIGWINCH handler, installed when the first ``TerminalMonitor`` is made (so never unless the
/// terminal is read or observed), once per process, behind a lock.
///
/// The handler only writes a byte to a pipe (async-signal-safe), then calls the handler that was
/// installed before it, if any: a program's own handler keeps working. A thread of its own (which unblocks SIGWINCH,
/// so that some thread takes it) waits on the pipe and measures every live monitor's terminal again, outside the signal handler.
///
/// `@unchecked Sendable`: its state lives behind `state`'s lock; `previousAction` is written once, under
/// that lock, before the handler that reads it is installed.
final class WindowSizeSignal: @unchecked Sendable {
    static let shared = WindowSizeSignal()

    private struct State {
        var isInstalled = false
        var monitors: [WeakMonitor] = []
    }

    private struct WeakMonitor {
        weak var monitor: TerminalMonitor?
    }

    private let state = Locked.make(State())
    /// The pipe's write end, which the handler writes to (-1 before installation).
    private let writeDescriptor = Atomic<Int32>(-1)
    /// The action installed before ours, which the handler chains to.
    private let previousAction = UnsafeMutablePointer<sigaction>.allocate(capacity: 1)

    private init() {
        previousAction.initialize(to: sigaction())
    }

    /// Whether the handler is installed.
    var isInstalled: Bool { state.withLock { $0.isInstalled } }

    /// Follows resizes for `monitor` (weakly), installing the handler if it is not yet.
    func add(_ monitor: TerminalMonitor) {
        state.withLock { state in
            state.monitors.removeAll { $0.monitor == nil }
            state.monitors.append(WeakMonitor(monitor: monitor))
            if !state.isInstalled { state.isInstalled = install() }
        }
    }

    /// Makes the pipe, starts the thread that waits on it, and installs the handler. Under the lock.
    private func install() -> Bool {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return false }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(descriptors[1], F_SETFL, fcntl(descriptors[1], F_GETFL) | O_NONBLOCK)
        writeDescriptor.store(descriptors[1], ordering: .sequentiallyConsistent)
        readDescriptor = descriptors[0]
        guard startReader() else { return false }

        var action = sigaction()
        #if canImport(Darwin)
        action.__sigaction_u.__sa_sigaction = windowSizeHandler
        #else
        action.__sigaction_handler.sa_sigaction = windowSizeHandler
        #endif
        action.sa_flags = SA_SIGINFO | SA_RESTART
        sigemptyset(&action.sa_mask)
        return sigaction(SIGWINCH, &action, previousAction) == 0
    }

    /// The pipe's read end, which the reader thread waits on.
    private var readDescriptor: Int32 = -1

    private func startReader() -> Bool {
        DetachedThread.start { WindowSizeSignal.shared.readLoop() }
    }

    /// Waits for the handler's bytes and measures every live monitor's terminal again.
    private func readLoop() {
        // At least this thread takes SIGWINCH, even when the thread that made it blocks the signal.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGWINCH)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        let descriptor = state.withLock { _ in readDescriptor }
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            let monitors = state.withLock { $0.monitors.compactMap(\.monitor) }
            for monitor in monitors { monitor.refresh() }
        }
    }

    /// Called by the handler: wakes the reader, then chains to the previous action. Async-signal-safe.
    fileprivate func signalled(
        _ signal: Int32,
        _ info: UnsafeMutablePointer<siginfo_t>?,
        _ context: UnsafeMutableRawPointer?
    ) {
        let savedError = errno
        var byte: UInt8 = 1
        _ = write(writeDescriptor.load(ordering: .relaxed), &byte, 1)
        errno = savedError
        let previous = previousAction.pointee
        if previous.sa_flags & SA_SIGINFO != 0 {
            #if canImport(Darwin)
            previous.__sigaction_u.__sa_sigaction?(signal, info, context)
            #else
            previous.__sigaction_handler.sa_sigaction?(signal, info, context)
            #endif
            return
        }
        #if canImport(Darwin)
        let handler = previous.__sigaction_u.__sa_handler
        #else
        let handler = previous.__sigaction_handler.sa_handler
        #endif
        // SIG_DFL is nil (and does nothing for SIGWINCH); SIG_IGN is 1.
        guard let handler, unsafeBitCast(handler, to: Int.self) != 1 else { return }
        handler(signal)
    }
}

/// The installed SIGWINCH action.
private func windowSizeHandler(
    _ signal: Int32,
    _ info: UnsafeMutablePointer<siginfo_t>?,
    _ context: UnsafeMutableRawPointer?
) {
    WindowSizeSignal.shared.signalled(signal, info, context)
}
