import Foundation

// MARK: - Waiting for what another task or thread does

/// How long a test waits for work it handed to another task or thread (a scope shut down by a
/// task its holder's `deinit` started, a signal's handler, a reader leaving).
///
/// Long on purpose: on a loaded two-core machine, with the suites running in parallel and the
/// sanitizers' slowdown, a queued task has waited over ten seconds for a thread. The limit is only
/// reached when the promise under test is broken, and then the test fails instead of hanging.
let waitLimit: Duration = .seconds(120)

/// Waits until `condition` holds, checking it every `interval`, for at most `limit`, without blocking a
/// thread: what it waits for may be a task that needs one. A cancelled task stops waiting at once.
///
/// - Returns: Whether `condition` held: `#expect(await waitUntil { … })` fails a test that timed out.
@discardableResult
func waitUntil(
    upTo limit: Duration = waitLimit,
    checkingEvery interval: Duration = .milliseconds(5),
    _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        do {
            try await Task.sleep(for: interval)
        } catch {
            return condition()  // cancelled (a time limit, an interrupted run): no busy loop
        }
    }
    return true
}

/// Waits until `condition` holds, blocking the calling thread, checking it every `interval` (in
/// microseconds), for at most `limit`. The calling thread is often one of the cooperative pool (a
/// synchronous test runs on one): wait only for work on threads of its own (a `Thread`,
/// ``onThread(_:)``), never for a task.
///
/// - Returns: Whether `condition` held.
@discardableResult
func blockingWaitUntil(
    upTo limit: Duration = waitLimit,
    checkingEveryMicroseconds interval: UInt32 = 1_000,
    _ condition: () -> Bool
) -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        usleep(interval)
    }
    return true
}
