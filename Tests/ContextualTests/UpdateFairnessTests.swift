// Tests that `update` runs its closure again only for a conflicting update, not for any change in the tree.

import Foundation
import Synchronization
import Testing

@testable import Contextual

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thrown by an update's closure that ran too often, so that a regression fails instead of looping.
private struct TooManyRuns: Error {}

/// Flags with which a test holds a transform while another thread applies it.
private final class TransformControl: Sendable {
    let armed = Atomic<Bool>(false)
    let inTransform = Atomic<Bool>(false)
    let release = Atomic<Bool>(false)
}

/// Runs each of `bodies` on a thread of its own, all at once, and returns when they all have returned.
private func runAndJoin(_ bodies: [@Sendable () -> Void]) {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var threads: [pthread_t] = []
    for body in bodies {
        var thread = pthread_t()
        let created = pthread_create(
            &thread,
            nil,
            { raw in
                Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            },
            Unmanaged.passRetained(Body(body)).toOpaque()
        )
        precondition(created == 0, "pthread_create failed with \(created)")
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// What the threads of a racing test share: the writes made elsewhere, and how many incrementers have
/// started and finished (the other threads run only while they run, so that the test stays short even
/// when other suites keep the machine busy).
private final class Shared: Sendable {
    let elsewhereWrites = Atomic<Int>(0)
    let started = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    let incrementers: Int

    init(incrementers: Int) {
        self.incrementers = incrementers
    }

    /// Waits (for at most ``waitLimit``) until every incrementer has started.
    func waitForStart() {
        blockingWaitUntil { started.load(ordering: .relaxed) >= incrementers }
    }

    var isRunning: Bool { finished.load(ordering: .relaxed) < incrementers }
}

@Suite("update: fair under writes elsewhere in the tree, and still atomic")
struct UpdateFairnessTests {
    @Test("Updates of siblings, descendants and other branches while the closure runs do not make it run again")
    func changesElsewhereDoNotRerun() throws {
        let app = Context(name: "app") { $0.verbosity = 0 }
        let target = app.child(name: "target")
        let sibling = app.child(name: "sibling")
        let grandchild = target.child(name: "grandchild")
        let cousin = sibling.child(name: "cousin")
        _ = (grandchild[\.verbosity], cousin[\.verbosity])
        var runs = 0
        try target.update { values in
            runs += 1
            guard runs <= 20 else { throw TooManyRuns() }
            // The tree changes while the closure runs, everywhere but in what `target` reads.
            sibling.update { $0.requestID = "sibling \(runs)" }
            grandchild.update { $0.tags = ["grandchild \(runs)"] }
            cousin.update { $0.tags = ["cousin \(runs)"] }
            values.verbosity += 1
        }
        #expect(runs == 1)
        #expect(target[\.verbosity] == 1)
        #expect(grandchild[\.verbosity] == 1)  // descendants see the new value
        #expect(grandchild[\.tags] == ["grandchild 1"])
        #expect(app[\.verbosity] == 0)
        #expect(cousin[\.verbosity] == 0)
        #expect(sibling[\.requestID] == "sibling 1")
    }

    @Test("A change of an ancestor's values while the closure runs makes it run again on them, once")
    func ancestorChangeReruns() throws {
        let app = Context(name: "app") { $0.tags = ["v1"] }
        let child = app.child(name: "child")
        let sibling = app.child(name: "sibling")
        let leaf = child.child(name: "leaf")
        var runs = 0
        try child.update { values in
            runs += 1
            guard runs <= 20 else { throw TooManyRuns() }
            sibling.update { $0.verbosity = runs }  // elsewhere: never a reason to run again
            if runs == 1 { app.update { $0.tags = ["v2"] } }  // what the closure read changed
            values.tags.append("child")
        }
        #expect(runs == 2)
        #expect(child[\.tags] == ["v2", "child"])  // the ancestor's write is not lost
        #expect(leaf[\.tags] == ["v2", "child"])
        #expect(app[\.tags] == ["v2"])
    }

    @Test("Racing increments of one context lose nothing, and each retry is another increment's success")
    func racingIncrementsAreAtomicAndFair() async {
        let app = Context(name: "app") { $0.verbosity = 0 }
        let target = app.child(name: "target")
        let leaf = target.child(name: "leaf")
        let others = (0..<3).map { app.child(name: "sibling \($0)") }
        let below = leaf.child(name: "below")
        let incrementers = 4
        let increments = 50
        let shared = Shared(incrementers: incrementers)
        let violations = Locked<[String]>.make([])

        // Writers elsewhere in the tree, as fast as they can, and a reader that keeps refreshing states,
        // while the incrementers run.
        var threads: [@Sendable () -> Void] = []
        for context in others + [below] {
            threads.append {
                shared.waitForStart()
                for _ in 0..<200_000 where shared.isRunning {
                    context.update { $0.verbosity += 1 }
                    shared.elsewhereWrites.add(1, ordering: .relaxed)
                }
            }
        }
        threads.append {
            shared.waitForStart()
            while shared.isRunning { _ = (leaf[\.verbosity], target[\.tags]) }
        }
        // Each increment's closure waits (briefly) until the tree moved, then checks that every run after
        // the first saw a value another increment published: runs ≤ 1 + the increments it raced.
        for thread in 0..<incrementers {
            threads.append {
                shared.started.add(1, ordering: .relaxed)
                shared.waitForStart()
                defer { shared.finished.add(1, ordering: .relaxed) }
                for step in 0..<increments {
                    var seen: [Int] = []
                    do {
                        try target.update { values in
                            seen.append(values.verbosity)
                            // At most one run more than the other threads' increments.
                            guard seen.count <= 1 + (incrementers - 1) * increments else { throw TooManyRuns() }
                            let start = shared.elsewhereWrites.load(ordering: .relaxed)
                            for _ in 0..<200 where shared.elsewhereWrites.load(ordering: .relaxed) == start {
                                usleep(50)
                            }
                            values.verbosity += 1
                        }
                    } catch {
                        violations.withLock { $0.append("thread \(thread), step \(step): ran \(seen.count) times") }
                        continue
                    }
                    if seen.count > 1 + (seen.last! - seen.first!) {
                        violations.withLock {
                            $0.append("thread \(thread), step \(step): ran \(seen.count) times, saw \(seen)")
                        }
                    }
                }
            }
        }
        // All on threads of their own, started at once: the test is over quickly, whatever else runs.
        let allThreads = threads
        await onThread { runAndJoin(allThreads) }

        let found = violations.withLock { $0 }
        #expect(found.isEmpty, "\(found.prefix(5))")
        #expect(target[\.verbosity] == incrementers * increments)  // no increment lost
        #expect(leaf[\.verbosity] == incrementers * increments)  // descendants see it
        #expect(leaf.child()[\.verbosity] == incrementers * increments)
        #expect(app[\.verbosity] == 0)
        #expect(shared.elsewhereWrites.load(ordering: .relaxed) > 0)
    }

    @Test("An update published while another thread reapplies a transform keeps the value it set")
    func updateRacingATransformKeepsItsValue() async throws {
        let control = TransformControl()
        let app = Context(name: "app") { $0.tags = ["v1"] }
        let audited = app.child(transforming: \.tags, name: "audited") { tags in
            if control.armed.exchange(false, ordering: .sequentiallyConsistent) {
                control.inTransform.store(true, ordering: .sequentiallyConsistent)
                spinUntil(control.release)
            }
            tags.append("audit")
        }
        let sibling = app.child(name: "sibling")
        app.update { $0.tags = ["v2"] }
        var runs = 0
        let readerDone = Gate()
        try audited.update { values in
            runs += 1
            guard runs <= 20 else { throw TooManyRuns() }
            if runs == 1 {
                sibling.update { $0.verbosity = 1 }  // the tree moves while the closure runs
                // Another thread reads `audited`, which reapplies its transform, held here until the update
                // is published.
                control.armed.store(true, ordering: .sequentiallyConsistent)
                // A thread of its own, not a task: this one blocks a thread of the pool meanwhile.
                Thread {
                    _ = audited[\.tags]
                    readerDone.open()
                }
                .start()
                let inTransform = spinUntil(control.inTransform)
                #expect(inTransform)
            }
            values.tags = ["mine"]  // set by the update: the transform stops applying
        }
        control.release.store(true, ordering: .sequentiallyConsistent)
        await onThread { readerDone.wait() }
        #expect(runs == 1)
        #expect(audited[\.tags] == ["mine"])
        app.update { $0.tags = ["v3"] }
        #expect(audited[\.tags] == ["mine"])
    }
}
