// The defaults a thread is computing, to find a default that reads itself before it waits forever.
// Architecture: ARCHITECTURE.md, "Default values and test values".

// MARK: - DefaultFrame

/// One key's ``ContextKey/defaultValue`` being computed, linked to the default whose computation read it:
/// the path of defaults the running thread is computing, innermost first.
///
/// A default's getter is synchronous, so its computation runs on one thread from start to end: the path
/// is kept per thread (not per task, so that a task started by a default, which may run later, is not
/// taken for part of it). It finds the loops of defaults that would wait forever on a key's
/// ``DefaultCell``, as ``ResolutionFrame`` finds provider cycles, and only on the path that computes a
/// default (a default already computed is read without it):
/// - **On one thread.** Reading a key whose default this thread is computing (its default reads itself,
///   directly or through other keys' defaults) is a loop: reported before anything waits.
/// - **Across threads.** Thread 1 computes A's default and reads B while thread 2 computes B's and
///   reads A: each waits for the other. Before waiting, a thread marks every frame of its path as
///   blocked on the key it waits for, then follows who computes that key and what it is blocked on;
///   reaching one of its own frames is a loop. Marks are taken under each frame's lock before the walk,
///   so of two threads closing a loop at the same moment, at least the second sees the first.
///
/// A loop cannot be thrown from a key read: it stops the process with ``ContextError/Code/defaultCycle``.
final class DefaultFrame: Sendable {
    /// The cell of the key whose default this frame computes.
    let cell: DefaultCell
    let parent: DefaultFrame?
    /// The cell this frame's thread waits for, if it waits.
    let blockedOn = Locked<DefaultCell?>.make(nil)

    init(cell: DefaultCell, parent: DefaultFrame?) {
        self.cell = cell
        self.parent = parent
    }

    /// The key's name in messages, e.g. `ThemeKey`.
    var label: String { cell.label }

    /// This frame and its ancestors, innermost first.
    var path: [DefaultFrame] {
        var frames: [DefaultFrame] = []
        var node: DefaultFrame? = self
        while let frame = node {
            frames.append(frame)
            node = frame.parent
        }
        return frames
    }

    // MARK: - The running thread's path

    /// The innermost default the running thread is computing, if any.
    static var current: DefaultFrame? {
        let word = ThreadSlot.defaultFrame.word
        return word == 0 ? nil : ReferenceWord.instance(word, as: DefaultFrame.self)
    }

    /// Runs `body` (a default's computation) with `frame` as the running thread's innermost frame, and
    /// outside any `@Injected` read (``ThreadSlot/injectedRead`` is 0 for it): a hard failure in the
    /// default's own code, or a default that reads itself, is located by that code, not at the property
    /// whose read asked for the default (see ``HardFailure``).
    static func withCurrent<Result>(_ frame: DefaultFrame, _ body: () -> Result) -> Result {
        withExtendedLifetime(frame) {
            ThreadSlot.defaultFrame.withWordOutsideInjectedRead(ReferenceWord.unretained(frame), body)
        }
    }

    // MARK: - Waiting for another computation

    /// Marks the running thread's path as blocked on `cell`, computed by `computer`, and checks that
    /// waiting cannot close a loop; call ``unblock()`` when the wait ends.
    ///
    /// Stops the process with ``ContextError/Code/defaultCycle`` when `computer` is on the running
    /// thread's path, or waits (directly or through others) for a default on it.
    static func block(on cell: DefaultCell, computedBy computer: DefaultFrame) {
        guard let current else { return }  // a read outside every default is part of no loop
        let mine = current.path
        for frame in mine { frame.blockedOn.withLock { $0 = cell } }
        var labels = [cell.label]
        var builder = computer
        // A loop has at most as many steps as there are defaults being computed; the bound only guards
        // against a path that keeps changing under the walk.
        for _ in 0..<1024 {
            if let index = mine.firstIndex(where: { $0 === builder }) {
                let loop = mine[...index].reversed().map(\.label) + labels
                HardFailure.stop(.defaultCycle(loop, isTestValue: cell.isTestValue))
            }
            guard let further = builder.blockedOn.withLock({ $0 }), let next = further.computer else { return }
            labels.append(further.label)
            builder = next
        }
    }

    /// Clears the marks of ``block(on:computedBy:)``.
    static func unblock() {
        guard let current else { return }
        for frame in current.path { frame.blockedOn.withLock { $0 = nil } }
    }
}

// MARK: - The error

extension ContextError {
    /// Defaults (or, in a test context, test values) that read each other in a loop, e.g.
    /// `["ThemeKey", "PaletteKey", "ThemeKey"]`.
    static func defaultCycle(_ loop: [String], isTestValue: Bool = false) -> ContextError {
        let path = loop.joined(separator: " → ")
        let first = loop.first ?? "?"
        let reads =
            loop.count <= 2
            ? "'\(first)' reads '\(first)' itself"
            : "'\(first)' reads " + loop.dropFirst().map { "'\($0)'" }.joined(separator: ", which reads ") + " again"
        let (kind, property) = isTestValue ? ("test value", "testValue") : ("default value", "defaultValue")
        return ContextError(
            code: .defaultCycle,
            requestedType: loop.last,
            searchedContexts: [],
            message: "\(kind) cycle: \(path). The \(kind) of \(reads) before it is computed. "
                + "A \(kind) is computed once, and a read of its key waits for that computation, so "
                + "this read would wait for itself forever. Fix: a key's `\(property)` must not read its own "
                + "key, directly or through other keys' \(kind)s: make one of them the source, which reads no "
                + "other key, and derive the others from it with a function they can call, or set the value on "
                + "a context (such as the root) instead of deriving it in a \(kind).",
            resolutionPath: loop
        )
    }
}
