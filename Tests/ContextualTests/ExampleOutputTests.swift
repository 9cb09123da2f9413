// Tests that `swift run contextual-example` prints what the README says, the same on every run.

import Testing

#if canImport(Glibc)
import Glibc
#endif

#if os(Linux)
@Suite("The example's output")
struct ExampleOutputTests {
    @Test("The reload halfway is seen by an observer and by exactly the later half of the requests, every run")
    func reloadHalfwayIsDeterministic() async throws {
        // On a thread of its own: the runs take seconds (more under the sanitizers), which would hold a
        // thread of the pool the other suites' tasks run on.
        let first = try #require(await onThread { runExample() })
        let second = try #require(await onThread { runExample() })
        #expect(first.status == 0)
        #expect(first.output.contains("  config reloads observed:    1\n"))
        #expect(
            first.output.contains(
                "  greetings seen:             'Welcome' 100x (req-1…req-100), 'Welcome back' 100x (req-101…req-200)\n"
            )
        )
        #expect(second.output == first.output)
    }
}

/// Runs the `contextual-example` executable, built in the same products directory as the tests, and
/// returns its exit status and what it printed; nil when it is not there. A run silent for 60 seconds in
/// all is killed, so that a hang fails instead of hanging the test.
private func runExample() -> (status: Int32, output: String)? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    let testBinary = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = testBinary.lastIndex(of: "/") else { return nil }
    let path = String(testBinary[..<slash]) + "/contextual-example"
    guard access(path, X_OK) == 0 else { return nil }

    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
    posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
    // Under ThreadSanitizer (`swift test --sanitize=thread`) the example is built with it too, and the
    // `Synchronization.Mutex` it uses hands over, when contended, where it does not see (see
    // `ThreadSanitizerAnnotations`): its reports there are
    // false, and would fail the run. The example's races are not what this test checks.
    var environment: [UnsafeMutablePointer<CChar>?] = [strdup("TSAN_OPTIONS=report_bugs=0")]
    // Under AddressSanitizer, LeakSanitizer checks the example at exit and takes a weak reference's side
    // table for a leak (the object's header holds its address shifted, which it does not read as a
    // pointer): it would exit with 1 before the output buffered for the pipe is written. Its report of
    // that one false leak is suppressed; any other leak still fails the run, with its report on stderr.
    let suppressions = writeLeakSuppressions()
    defer { if let suppressions { unlink(suppressions) } }
    if let suppressions { environment.append(strdup("LSAN_OPTIONS=suppressions=\(suppressions):print_suppressions=0")) }
    var entry = environ
    while let variable = entry.pointee {
        let replaced =
            strncmp(variable, "TSAN_OPTIONS=", 13) == 0
            || (suppressions != nil && strncmp(variable, "LSAN_OPTIONS=", 13) == 0)
        if !replaced { environment.append(strdup(variable)) }
        entry += 1
    }
    environment.append(nil)
    let argument = strdup(path)
    defer {
        free(argument)
        for variable in environment { free(variable) }
    }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, path, &actions, nil, [argument, nil], environment)
    close(pipeEnds[1])
    defer { close(pipeEnds[0]) }
    guard spawned == 0 else { return nil }

    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    var descriptor = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
    let deadline = 60_000
    var waited = 0
    while waited < deadline {
        let ready = poll(&descriptor, 1, 100)
        if ready == 0 {
            waited += 100
            continue
        }
        let count = read(pipeEnds[0], &chunk, chunk.count)
        if count <= 0 { break }
        output += chunk[0..<count]
    }
    if waited >= deadline { kill(pid, SIGKILL) }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return (waited >= deadline ? -1 : status, String(decoding: output, as: UTF8.self))
}

/// Writes a LeakSanitizer suppressions file naming the side tables of weak references and returns its
/// path; nil when it cannot be written (the example then runs with the options it inherits).
private func writeLeakSuppressions() -> String? {
    var template = Array("/tmp/contextual-lsan-XXXXXX".utf8CString)
    let descriptor = mkstemp(&template)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    // `formWeakReference` allocates the side table; the pattern matches a frame of the allocation's stack.
    let text = Array("leak:formWeakReference\n".utf8)
    guard write(descriptor, text, text.count) == text.count else {
        unlink(path)
        return nil
    }
    return path
}
#endif
