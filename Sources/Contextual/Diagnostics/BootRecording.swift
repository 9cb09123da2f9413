// What a boot report records while its validation runs: each build, its time and its reads (internal).
// Architecture: ARCHITECTURE.md, "The boot report's instruments".

// MARK: - BootRecording

/// The builds of one boot report, recorded by the tasks that run them: each factory call's start and
/// end, the builds nested in it, the providers it read, and how it ended.
///
/// The task making the report sets it as ``current``; builds started by other tasks of the tree are not
/// recorded (unless started from the report's task, whose task locals they inherit).
final class BootRecording: Sendable {
    /// One factory call.
    struct Build {
        let provider: any AnyProviderBox
        let start: ContinuousClock.Instant
        /// The build it is nested in, by index, if any.
        let parent: Int?
        var end: ContinuousClock.Instant?
        /// The time spent in the builds nested in this one.
        var nested: Duration = .zero
        /// The providers read by the factory, by address, and those built nested in it.
        var reads: [UInt] = []
        /// What the build threw, as a problem of the report.
        var failure: BootReport.Problem?
    }

    private struct State {
        var builds: [Build] = []
        /// The index of the build each running frame records, by the frame's identity.
        var running: [ObjectIdentifier: Int] = [:]
    }

    /// The recording of the running task's boot report, if it is making one.
    @TaskLocal static var current: BootRecording?

    private let state = Locked.make(State())

    init() {}

    /// Records the start of the factory call of `frame`; returns the build's index for ``end(_:reads:failure:)``.
    func begin(_ frame: ResolutionFrame) -> Int {
        let start = ContinuousClock.now
        return state.withLock { state in
            let parent = frame.parent.flatMap { state.running[ObjectIdentifier($0)] }
            state.builds.append(Build(provider: frame.provider, start: start, parent: parent))
            let index = state.builds.count - 1
            state.running[ObjectIdentifier(frame)] = index
            if let parent { state.builds[parent].reads.append(address(of: frame.provider)) }
            return index
        }
    }

    /// Records the end of build `index`: what it read, and what it threw if it failed.
    func end(_ index: Int, reads: [UInt], failure: (any Error)?) {
        let end = ContinuousClock.now
        let problem = failure.map { error in
            if let error = error as? ContextError { return BootReport.Problem(error) }
            let label = state.withLock { $0.builds[index].provider }.label
            // What the provider's resolve will throw as `factoryFailed`, told in the same words.
            return BootReport.Problem(
                code: ContextError.Code.factoryFailed.description,
                requestedType: label,
                message: "the factory of '\(label)' threw: \(error)",
                resolutionPath: [label]
            )
        }
        state.withLock { state in
            state.builds[index].end = end
            state.builds[index].reads += reads
            state.builds[index].failure = problem
            // The frames running are the few of the builds in flight.
            if let frame = state.running.first(where: { $0.value == index })?.key {
                state.running.removeValue(forKey: frame)
            }
            if let parent = state.builds[index].parent {
                state.builds[parent].nested += end - state.builds[index].start
            }
        }
    }

    /// Adds `addresses` to the reads of the build running in `frame`, if this recording records it.
    func noteReads(_ addresses: [UInt], in frame: ResolutionFrame) {
        state.withLock { state in
            if let index = state.running[ObjectIdentifier(frame)] { state.builds[index].reads += addresses }
        }
    }

    /// The builds recorded so far; a build without an end is still running.
    var builds: [Build] { state.withLock { $0.builds } }

    /// A provider's address, which a table entry holds with its tag bit set (see `ContextBox.addressTag`).
    func address(of provider: any AnyProviderBox) -> UInt {
        UInt(bitPattern: ObjectIdentifier(provider))
    }
}
