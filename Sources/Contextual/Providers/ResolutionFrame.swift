// The resolution path of the current task, for cycle detection and messages (internal).
// Architecture: ARCHITECTURE.md, "Providers: boxes, build cells, scope stores and resolution frames".

import Synchronization

// MARK: - ResolutionFrame

/// One provider being built, linked to the build that asked for it: the resolution path of the running
/// task, kept for the running thread while a synchronous factory runs and in a task local while an
/// asynchronous one does, so that it follows the factory's own calls (see ``current``).
///
/// It finds cycles in release builds and without a global lock, two ways:
/// - **On one path.** Building a provider that is already on the running task's path is a cycle
///   (A's factory resolves B, B's resolves A): reported at once, before anything waits or recurses.
/// - **Across tasks.** Task 1 builds A and wants B while task 2 builds B and wants A: each waits for the
///   other. Before waiting, a task marks every frame of its path as blocked on what it waits for, then
///   follows who builds that and what they are blocked on; reaching one of its own frames is a cycle.
///   Marks are taken under each frame's lock before the walk, so of two tasks closing a circle at the
///   same moment, at least the second sees the first: nobody waits forever.
@usableFromInline
final class ResolutionFrame: Sendable {
    // `provider`, `parent` and `depth` are set when the frame is made, and again only when it is reused
    // (see ``withFrame(building:below:in:_:)``): then the thread that reuses it holds its only reference, so no
    // other thread can be reading them.

    /// The provider being built; nil only while the frame waits to be reused.
    nonisolated(unsafe) private var building: (any AnyProviderBox)?
    /// The frame of the build that asked for this one.
    nonisolated(unsafe) private(set) var parent: ResolutionFrame?
    /// The number of frames above this one: 0 for a top-level build.
    nonisolated(unsafe) private(set) var depth: Int

    /// Whether another resolver waited for this frame's build (a ``BuildAttempt`` names it). Set under the
    /// lock of the cell being built, which the build's end takes before the frame could be reused: a frame
    /// waited for is never reused, since its waiters may read it (its path, for a message) after the build
    /// ended, ordered only by reference counting, which ThreadSanitizer does not see.
    nonisolated(unsafe) private var wasWaitedFor = false

    /// The provider being built.
    var provider: any AnyProviderBox { building! }

    /// Marks this frame's build as waited for; the caller holds the lock of the cell being built.
    func markWaitedFor() {
        wasWaitedFor = true
    }
    /// The build this frame's task waits for, if it waits.
    private let blockedOnStorage = LazyReference()

    /// The build this frame's task waits for: its lock is made when the task first waits (most builds
    /// never do, and a frame serves a build at a time).
    private var blockedOn: Locked<BuildAttempt?> {
        blockedOnStorage.lock(makingWith: nil)
    }

    /// The lock of ``blockedOn`` if this frame's task ever waited (else it waits for nothing).
    private var existingBlockedOn: Locked<BuildAttempt?>? {
        blockedOnStorage.existingLock(of: BuildAttempt?.self)
    }

    /// The innermost build of the running task, if it is building a provider: a synchronous build's, kept
    /// for the running thread (the factory runs on it from start to end), else an asynchronous build's,
    /// kept in a task local (the factory may resume on another thread).
    @usableFromInline
    static var current: ResolutionFrame? { current(in: .running) }

    /// ``current``, read in `thread`, the running thread's block (looked up once by a build).
    @usableFromInline
    static func current(in thread: ThreadSlot.Block) -> ResolutionFrame? {
        let word = thread[ThreadSlot.resolutionFrame]
        if word == 0 { return suspendingCurrent }
        let synchronous = ReferenceWord.instance(word, as: ResolutionFrame.self)
        // A task a synchronous factory starts inline (`Task.immediate`) may build asynchronously on top of
        // the thread's build: the innermost of the two is the deeper one.
        guard let suspending = suspendingCurrent, suspending.depth > synchronous.depth else { return synchronous }
        return suspending
    }

    /// The innermost asynchronous build of the running task, if one is running.
    ///
    /// The task local is read only while an asynchronous build runs somewhere in the process (a read
    /// costs over a hundred instructions, more than the rest of finding the path): when none does, no
    /// task can be inside one. A task started inside an asynchronous build inherits its frame and may
    /// outlive it: a frame whose build ended is no build of the running task, and the innermost of the
    /// builds around it still running is returned instead (or nil).
    private static var suspendingCurrent: ResolutionFrame? {
        guard asyncBuildsRunning.load(ordering: .relaxed) != 0 else { return nil }
        // The innermost build still running: a task started in a nested build that ended may still be
        // inside the builds around it.
        var frame = pushedSuspending
        while let ended = frame, ended.asyncBuildEnded.load(ordering: .acquiring) { frame = ended.parent }
        return frame
    }

    /// The innermost asynchronous build of the running task, as pushed (see ``suspendingCurrent``).
    @TaskLocal private static var pushedSuspending: ResolutionFrame?

    /// The number of asynchronous builds running in the process. A task inside one counted it before
    /// pushing its frame, so it never reads 0.
    private static let asyncBuildsRunning = Atomic<Int>(0)

    /// Set when this frame's asynchronous build ended (see ``suspendingCurrent``).
    private let asyncBuildEnded = Atomic<Bool>(false)

    /// Runs `body`, a synchronous factory, with `frame` as the running thread's innermost build: in the
    /// thread's ``ThreadSlot/resolutionFrame`` word, unretained (kept alive here while installed), rather
    /// than by a task-local push, which allocates outside a task and costs a few hundred instructions.
    /// `thread` is the running thread's block. The factory runs outside any `@Injected` read
    /// (``ThreadSlot/injectedRead`` is 0 for it): a hard failure in its own code is located by that code
    /// (an `@Injected` property it reads, or the library's line), not at the property whose read built it.
    @usableFromInline
    static func withCurrent<Result>(
        _ frame: ResolutionFrame,
        in thread: ThreadSlot.Block = .running,
        _ body: () throws -> Result
    ) rethrows -> Result {
        try withExtendedLifetime(frame) {
            try ThreadSlot.resolutionFrame.withWordOutsideInjectedRead(
                ReferenceWord.unretained(frame),
                in: thread,
                body
            )
        }
    }

    /// Runs `body`, an asynchronous factory, with `frame` as the running task's innermost build.
    static func withCurrent<Result>(
        _ frame: ResolutionFrame,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        asyncBuildsRunning.add(1, ordering: .relaxed)
        defer {
            frame.asyncBuildEnded.store(true, ordering: .releasing)
            asyncBuildsRunning.subtract(1, ordering: .relaxed)
        }
        return try await $pushedSuspending.withValue(frame, operation: body)
    }

    private init(provider: any AnyProviderBox, parent: ResolutionFrame?) {
        self.building = provider
        self.parent = parent
        self.depth = parent.map { $0.depth + 1 } ?? 0
    }

    // MARK: - Reusing frames

    /// Runs `body`, a synchronous build of `provider`, in a frame below `path`, the running task's path
    /// (``current``): the running thread's spare frame if it has one, else a new one. The frame is kept
    /// as the thread's spare afterwards if nothing else holds it (a waiter's attempt or a `require`'s
    /// failure sink may). `thread` is the running thread's block, which the caller may have looked up.
    ///
    /// - Throws: ``ContextError/Code/cycle`` when `provider` is already being built on this path; what
    ///   `body` throws.
    @inlinable
    static func withFrame<Result>(
        building provider: any AnyProviderBox,
        below path: ResolutionFrame?,
        in thread: ThreadSlot.Block = .running,
        _ body: (ResolutionFrame) throws(ContextError) -> Result
    ) throws(ContextError) -> Result {
        let frame = try enter(provider, below: path, in: thread)
        // Handed over with `consume` (not from a `defer`, which would keep the local's reference): the
        // frame can then be the only reference left.
        do throws(ContextError) {
            let result = try body(frame)
            keepAsSpare(consume frame, in: thread)
            return result
        } catch {
            keepAsSpare(consume frame, in: thread)
            throw error
        }
    }

    /// Keeps `frame` as the running thread's spare (in `thread`, its block) when nothing else holds it
    /// and the thread has none.
    @usableFromInline
    static func keepAsSpare(_ frame: consuming ResolutionFrame, in thread: ThreadSlot.Block) {
        var frame = frame
        guard !frame.wasWaitedFor, isKnownUniquelyReferenced(&frame) else { return }
        // Nothing another build could reach stays in it: no provider, no path.
        frame.building = nil
        frame.parent = nil
        ThreadSlot.spareResolutionFrame.keepSpare(consume frame, in: thread)
    }

    /// The running thread's spare frame (from `thread`, its block), set up for building `provider` below
    /// `parent`, or nil.
    private static func takeSpare(
        for provider: any AnyProviderBox,
        below parent: ResolutionFrame?,
        in thread: ThreadSlot.Block
    ) -> ResolutionFrame? {
        guard let frame = ThreadSlot.spareResolutionFrame.takeSpare(as: ResolutionFrame.self, in: thread) else {
            return nil
        }
        frame.building = provider
        frame.parent = parent
        frame.depth = parent.map { $0.depth + 1 } ?? 0
        return frame
    }

    /// The provider's name in messages, e.g. `Database (singleton)`: made only when a message needs it.
    @usableFromInline
    var label: String { provider.label }
    var lifetime: Lifetime { provider.lifetime }

    /// This frame and its ancestors, innermost first.
    var path: [ResolutionFrame] {
        var frames: [ResolutionFrame] = []
        var node: ResolutionFrame? = self
        while let frame = node {
            frames.append(frame)
            node = frame.parent
        }
        return frames
    }

    /// The labels of the running task's path, outermost first.
    static var currentLabels: [String] { current?.path.reversed().map(\.label) ?? [] }

    // MARK: - Entering a build

    /// A frame for building `provider` below `parent`, the running task's path (``current``); a spare
    /// one is taken from `thread`, the running thread's block.
    ///
    /// - Throws: ``ContextError/Code/cycle`` when `provider` is already being built on this path.
    @usableFromInline
    static func enter(
        _ provider: any AnyProviderBox,
        below parent: ResolutionFrame?,
        in thread: ThreadSlot.Block = .running
    ) throws(ContextError)
        -> ResolutionFrame
    {
        var node = parent
        while let frame = node {
            if frame.provider === provider, let parent {
                throw ContextError.cycle(labels(from: frame, to: parent) + [provider.label])
            }
            node = frame.parent
        }
        return takeSpare(for: provider, below: parent, in: thread)
            ?? ResolutionFrame(provider: provider, parent: parent)
    }

    /// The labels of the frames from `outer` down to `inner`, outermost first.
    private static func labels(from outer: ResolutionFrame, to inner: ResolutionFrame) -> [String] {
        var labels: [String] = []
        var node: ResolutionFrame? = inner
        while let frame = node {
            labels.append(frame.label)
            if frame === outer { break }
            node = frame.parent
        }
        return labels.reversed()
    }

    /// The nearest singleton being built on `path` (the running task's, ``current``), if any.
    @usableFromInline
    static func enclosingSingleton(on path: ResolutionFrame?) -> ResolutionFrame? {
        // A walk, not `path`: this runs on every resolve of a scoped object, warm ones included.
        var node = path
        while let frame = node {
            if frame.lifetime == .singleton { return frame }
            node = frame.parent
        }
        return nil
    }

    // MARK: - Waiting for another build

    /// Marks the running task's path as blocked on `attempt` and checks that waiting cannot close a
    /// circle; call ``unblock()`` when the wait ends.
    ///
    /// - Throws: ``ContextError/Code/cycle`` when the build of `attempt` waits (directly or through
    ///   others) for a build on the running task's path.
    static func block(on attempt: BuildAttempt) throws(ContextError) {
        guard let current else { return }  // a top-level resolve is not part of any circle
        let mine = current.path
        for frame in mine { frame.blockedOn.withLock { $0 = attempt } }
        // A frame's lock is made when it first waits: between two tasks that mark and then look at each
        // other's frames, a full fence keeps both from seeing the other's frames still unmarked.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        var labels = [attempt.label]
        var next = attempt
        // A circle has at most as many steps as there are builds in flight; the bound only guards
        // against a path that keeps changing under the walk.
        for _ in 0..<1024 {
            let builder = next.builder
            if let index = mine.firstIndex(where: { $0 === builder }) {
                unblock()
                throw ContextError.cycle(mine[...index].reversed().map(\.label) + labels)
            }
            guard let further = builder.existingBlockedOn?.withLock({ $0 }) else { return }
            labels.append(further.label)
            next = further
        }
    }

    /// Clears the marks of ``block(on:)``.
    static func unblock() {
        guard let current else { return }
        for frame in current.path { frame.existingBlockedOn?.withLock { $0 = nil } }
    }
}

// MARK: - FailureSink

/// Where a failed provider read through a key path (which cannot throw) leaves its error for
/// ``Context/require(_:)-(KeyPath<ContextValues,Value>)`` to throw, instead of stopping the process.
///
/// A factory run inside a `require` must not leave its own failures there: they are its own (the build
/// fails and the `require` sees that). Rather than a second task-local push on every build, the sink
/// remembers the build it was made in, and counts only there: inside a nested build the innermost frame
/// is another one, and the sink is not ``current``.
@usableFromInline
final class FailureSink: Sendable {
    private let errors = Locked<[ContextError]>.make([])
    /// The innermost build when the `require` began (nil outside any build).
    private let frame: ResolutionFrame?

    /// A sink for a `require` running in the current build, if any.
    init() {
        frame = ResolutionFrame.current
    }

    /// The sink of the running `require`, if any, as pushed (see ``current``).
    @TaskLocal static var pushed: FailureSink?

    /// The sink of the running `require`, unless a build began since: builds' factories have none.
    @usableFromInline
    static var current: FailureSink? {
        guard let sink = pushed, sink.frame === ResolutionFrame.current else { return nil }
        return sink
    }

    /// Leaves `error` for the running `require`, if one waits for it; else stops the process with the
    /// error's message (a read through a key path or a property cannot throw).
    @usableFromInline
    static func recordOrStop(_ error: ContextError, file: StaticString = #fileID, line: UInt = #line) {
        guard let sink = current else { HardFailure.stop(error, file: file, line: line) }
        sink.record(error)
    }

    @usableFromInline
    func record(_ error: ContextError) {
        errors.withLock { $0.append(error) }
    }

    var first: ContextError? { errors.withLock { $0.first } }
}
