import Dispatch

// MARK: - Async work in a synchronous scenario

/// Runs `body` in a new task and waits for it. A scenario's work is synchronous, but a server serves a
/// request in a task, and a scope's shutdown is `async`: the whole loop of a scenario runs in one task,
/// so that creating the task is paid once per run, not per operation.
func waitFor(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

/// A value handed to a `@Sendable` closure that uses it from one thread at a time (the scenario's).
final class OneThreadAtATime<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
