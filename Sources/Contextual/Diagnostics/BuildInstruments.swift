// What a context tree measures of its builds when asked: resolution counters and boot reports (internal).
// Architecture: ARCHITECTURE.md, "The boot report's instruments".

import Synchronization

// MARK: - BuildInstruments

/// The instruments of one context tree, made the first time counters are turned on or a boot report is
/// made for a context of the tree, and kept for the tree's life.
///
/// Until then, a build and a resolve that reaches its provider check with one load that the tree has
/// none (see ``ContextTree/observeBuild(in:_:)``); warm reads never look.
final class BuildInstruments: Sendable {
    /// The tree's counters: made with the instruments, counting only once turned on.
    let counters = ResolutionCounters()
    /// How many boot reports of the tree are validating: while none is, a build does not look for a
    /// recording in its task's locals.
    let reportsRunning = Atomic<Int>(0)

    init() {}

    /// Runs the factory call `body` of the build in `frame`: counted when counters are on, timed and its
    /// reads recorded when the running task is making a boot report.
    func observe<Value>(_ frame: ResolutionFrame, _ body: () throws -> Value) rethrows -> Value {
        if counters.isCounting { counters.countBuild(of: frame.provider) }
        guard reportsRunning.load(ordering: .acquiring) > 0, let recording = BootRecording.current else {
            return try body()
        }
        let build = recording.begin(frame)
        do {
            let (value, reads) = try ObservationRecorder.recordingProviderReads(body)
            recording.end(build, reads: reads, failure: nil)
            return value
        } catch {
            recording.end(build, reads: [], failure: error)
            throw error
        }
    }

    /// Adds `providers` to the reads of the build the running task is in, when it is making a boot
    /// report: the providers of ``Context/requireAll(_:)``, which reads them without a tracked read.
    func noteReads(of providers: [any AnyProviderBox]) {
        guard reportsRunning.load(ordering: .acquiring) > 0, let recording = BootRecording.current,
            let frame = ResolutionFrame.current
        else { return }
        recording.noteReads(providers.map(recording.address(of:)), in: frame)
    }

    /// ``observe(_:_:)`` for an async factory.
    func observe<Value>(_ frame: ResolutionFrame, _ body: () async throws -> Value) async rethrows -> Value {
        if counters.isCounting { counters.countBuild(of: frame.provider) }
        guard reportsRunning.load(ordering: .acquiring) > 0, let recording = BootRecording.current else {
            return try await body()
        }
        let build = recording.begin(frame)
        do {
            let (value, reads) = try await ObservationRecorder.recordingProviderReadsAsync(body)
            recording.end(build, reads: reads, failure: nil)
            return value
        } catch {
            recording.end(build, reads: [], failure: error)
            throw error
        }
    }
}

// MARK: - The tree's hooks

extension ContextTree {
    /// The tree's instruments, if anything turned them on.
    var instruments: BuildInstruments? { instrumentsStorage.load(as: BuildInstruments.self) }

    /// The tree's instruments, made now if needed.
    var madeInstruments: BuildInstruments {
        instruments ?? instrumentsStorage.storeIfNil(BuildInstruments())
    }

    /// Counts a resolve that reached `provider` (not a warm read of a built singleton, which never does),
    /// when counters are on; otherwise one load and one branch.
    @usableFromInline @inline(__always)
    func countResolve(of provider: some AnyProviderBox) {
        _ = instrumentsStorage.withInstance(as: BuildInstruments.self) { instruments in
            if instruments.counters.isCounting { instruments.counters.countResolve(of: provider) }
        }
    }

    /// Runs a factory call: `body` itself, after one load and one branch, unless the tree is instrumented.
    @usableFromInline @inline(__always)
    func observeBuild<Value>(in frame: ResolutionFrame, _ body: () throws -> Value) rethrows -> Value {
        if instrumentsStorage.bits.load(ordering: .acquiring) == 0 { return try body() }
        return try madeInstruments.observe(frame, body)
    }

    /// Notes that the running build read `providers` without a tracked read, when a boot report runs;
    /// otherwise one load and one branch.
    @inline(__always)
    func noteReads(of providers: @autoclosure () -> [any AnyProviderBox]) {
        if instrumentsStorage.bits.load(ordering: .acquiring) == 0 { return }
        madeInstruments.noteReads(of: providers())
    }

    /// ``observeBuild(in:_:)`` for an async factory.
    @inline(__always)
    func observeBuild<Value>(in frame: ResolutionFrame, _ body: () async throws -> Value) async rethrows -> Value {
        if instrumentsStorage.bits.load(ordering: .acquiring) == 0 { return try await body() }
        return try await madeInstruments.observe(frame, body)
    }
}

// MARK: - Recording a factory's reads

extension ObservationRecorder {
    /// Runs `body` and returns, with its result, the addresses of the providers it read (the entries
    /// tagged as providers): the edges of the dependency graph, already-built singletons included.
    static func recordingProviderReads<Result>(_ body: () throws -> Result) rethrows -> (Result, [UInt]) {
        let recorder = ObservationRecorder()
        activeCount.wrappingAdd(1, ordering: .relaxed)
        defer { activeCount.wrappingSubtract(1, ordering: .relaxed) }
        let result = try $current.withValue(recorder) { try body() }
        return (result, recorder.providerAddresses)
    }

    /// ``recordingProviderReads(_:)`` for an async `body`.
    static func recordingProviderReadsAsync<Result>(
        _ body: () async throws -> Result
    ) async rethrows -> (Result, [UInt]) {
        let recorder = ObservationRecorder()
        activeCount.wrappingAdd(1, ordering: .relaxed)
        defer { activeCount.wrappingSubtract(1, ordering: .relaxed) }
        let result = try await $current.withValue(recorder) { try await body() }
        return (result, recorder.providerAddresses)
    }

    /// The addresses of the providers read, from the tagged entries recorded.
    private var providerAddresses: [UInt] {
        keys(from: 0).compactMap { $0.box & 1 == 1 ? $0.box & ~1 : nil }
    }
}
