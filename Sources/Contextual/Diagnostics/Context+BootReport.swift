// Making a boot report: `prepare()` run with its builds recorded, within a deadline.

import Synchronization

// MARK: - Boot report

extension Context {
    /// Validates this context as ``prepare()`` does (every provider it sees is resolved, async ones
    /// awaited), recording each factory call, and returns what it found instead of throwing it.
    ///
    /// ```swift
    /// let report = await app.bootReport(deadline: .seconds(30))
    /// if !report.isValid { print(report.problems.map(\.message)) }
    /// print(report.dot)  // the dependency graph, for Graphviz
    /// ```
    ///
    /// The report lists, for every provider: its lifetime, the context that registered it, how long its
    /// factory took (the builds nested in it shown apart), and the providers it resolved, built then or
    /// before: the edges of the dependency graph. Make it first, at boot: a singleton already built has
    /// no build to time (it shows as ``BootReport/Status/notBuilt``, without edges).
    ///
    /// A factory still running at `deadline` shows as ``BootReport/Status/building``, with a
    /// ``ContextError/Code/buildTimedOut`` problem; the report is returned at the deadline, and the
    /// validation goes on in the background (a synchronous factory cannot be interrupted); the problems
    /// are then those of the builds that failed before the deadline. While the
    /// report is made (and while a factory it left running at the deadline runs), reads in the whole
    /// process take their tracked path, as inside an observation scope: boot, not a request path, is the
    /// place for it.
    ///
    /// - Parameter deadline: How long validation may run before the report is made of what finished.
    /// - Returns: The report; it never throws: the problems found are in ``BootReport/problems``.
    ///
    /// - Complexity: the builds, plus O(*p* + *e*) for *p* providers and *e* edges (10,000 providers
    ///   in about 0.1 s beyond their builds, in a release build on a 2-core machine).
    nonisolated(nonsending)
        public func bootReport(deadline: Duration = .seconds(60)) async -> BootReport
    {
        let recording = BootRecording()
        let instruments = tree.madeInstruments
        let providers = visibleProviders()
        let start = ContinuousClock.now
        instruments.reportsRunning.wrappingAdd(1, ordering: .acquiringAndReleasing)
        let outcome = await BootRun.run(deadline: deadline) {
            // Until the validation ends, even past the deadline: a build still running is recorded.
            defer { instruments.reportsRunning.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
            return await BootRecording.$current.withValue(recording) {
                do throws(ContextError) {
                    try await self.prepare()
                    return [ContextError]()
                } catch {
                    return error.code == .validationFailed
                        ? error.underlyingErrors.compactMap { $0 as? ContextError } : [error]
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        return BootReportAssembly(
            context: displayName,
            providers: providers,
            builds: recording.builds,
            problems: outcome ?? [],
            timedOut: outcome == nil,
            deadline: deadline,
            elapsed: elapsed
        ).report()
    }
}

// MARK: - BootRun

/// Runs a validation in a task of its own and waits for it at most a deadline.
enum BootRun {
    /// What `body` returned, or nil when `deadline` passed first (`body` goes on in the background).
    ///
    /// `body` runs on a thread of its own (``BootExecutor``) and the deadline is kept by another: a
    /// factory that blocks takes neither a thread of the cooperative pool nor the report's deadline.
    static func run(
        deadline: Duration,
        _ body: @escaping @Sendable () async -> [ContextError]
    ) async -> [ContextError]? {
        let gate = Gate()
        return await withCheckedContinuation { (continuation: CheckedContinuation<[ContextError]?, Never>) in
            gate.set(continuation)
            let timer = BootDeadline(deadline) { gate.finish(nil) }
            let executor = BootExecutor()
            Task.detached(executorPreference: executor) {
                let problems = await body()
                timer.end()
                gate.finish(problems)
                executor.finish()
            }
        }
    }

    /// Resumes its continuation once: with the first of the validation's end and the deadline.
    private final class Gate: Sendable {
        private let continuation = Locked<CheckedContinuation<[ContextError]?, Never>?>.make(nil)

        func set(_ continuation: CheckedContinuation<[ContextError]?, Never>) {
            self.continuation.withLock { $0 = continuation }
        }

        func finish(_ value: [ContextError]?) {
            let waiting = continuation.withLock { continuation in
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume(returning: value)
        }
    }
}
