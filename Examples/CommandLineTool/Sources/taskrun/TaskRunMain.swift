// `taskrun`: see TaskRun. An `@main` type rather than main.swift, whose top-level code would pick the
// synchronous `main()` of ParsableCommand.

import TaskRunCommand

@main
struct TaskRunMain {
    static func main() async { await TaskRun.main() }
}
