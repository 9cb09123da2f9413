// The load test: the Contextual server and the plain one, in this process, on 127.0.0.1 only, bounded in
// requests and time. Fails on cross-talk, a missed or repeated shutdown, or memory growth; prints (and
// does not fail on) the throughput ratio, which is noisy.
//
// swift run -c release todo-load-test [--requests N] [--connections N] [--seconds N]

import Contextual
import Foundation
import Hummingbird
import Logging
import LoopbackHTTP
import NIOCore
import TodoServer

@main
struct LoadTest {
    static func main() async throws {
        let options = try Options(CommandLine.arguments.dropFirst())
        let deadline = ContinuousClock.now + .seconds(options.seconds)
        var failures: [String] = []
        print(
            "load test: \(options.requests) requests per variant over \(options.connections) connections, 127.0.0.1 only"
        )

        // Warm both variants up; then, in `rounds` rounds, alternating, measure each over `batches` batches
        // of requests (--requests in all per variant), sampling the resident size after each Contextual
        // batch; report each variant's best round.
        let rounds = 3
        let batches = 4
        let perBatch = max(options.connections, options.requests / rounds / batches)
        var plainRuns: [Run] = []
        var contextualRuns: [Run] = []
        var rssSamples: [Int] = []
        let audit = ScopeAudit()
        let warmUp = max(options.connections, options.requests / 10)
        try await withPlainServer { port in
            _ = try await hammer(
                port: port,
                requests: warmUp,
                connections: options.connections,
                deadline: deadline,
                tag: "pw"
            )
        }
        try await withContextualServer(audit: audit) { port in
            _ = try await hammer(
                port: port,
                requests: warmUp,
                connections: options.connections,
                deadline: deadline,
                tag: "cw"
            )
        }
        for round in 1...rounds {
            // Alternate which variant goes first, so that neither always runs on a warmer or calmer machine.
            for contextual in round % 2 == 1 ? [false, true] : [true, false] {
                if contextual {
                    try await withContextualServer(audit: audit) { port in
                        var total = Run()
                        for batch in 1...batches {
                            total += try await hammer(
                                port: port,
                                requests: perBatch,
                                connections: options.connections,
                                deadline: deadline,
                                tag: "c\(round).\(batch)"
                            )
                            rssSamples.append(residentBytes())
                        }
                        failures += total.failures.map { "Contextual, round \(round): \($0)" }
                        contextualRuns.append(total)
                        let streamed = try await hammer(
                            port: port,
                            requests: warmUp,
                            connections: options.connections,
                            deadline: deadline,
                            path: "/todos/stream",
                            tag: "s\(round)"
                        )
                        failures += streamed.failures.map { "Contextual streamed, round \(round): \($0)" }
                    }
                } else {
                    try await withPlainServer { port in
                        var total = Run()
                        for batch in 1...batches {
                            total += try await hammer(
                                port: port,
                                requests: perBatch,
                                connections: options.connections,
                                deadline: deadline,
                                tag: "p\(round).\(batch)"
                            )
                        }
                        failures += total.failures.map { "plain, round \(round): \($0)" }
                        plainRuns.append(total)
                    }
                }
            }
        }

        // Every unit of work built was shut down exactly once, streamed responses included.
        if audit.built != audit.shutDown {
            failures.append(
                "\(audit.built) units of work were built but \(audit.shutDown) were shut down: a request's scope did not "
                    + "end (see RequestScopeMiddleware and Contextual's RequestScope)"
            )
        }
        if audit.repeatedShutdowns > 0 {
            failures.append(
                "\(audit.repeatedShutdowns) shutdowns came to a unit of work already shut down: a scope ended twice"
            )
        }
        // Memory: the resident size, sampled through the measured Contextual runs, stays flat.
        let rssGrowth = rssGrowth(rssSamples)
        let rssLimit = 8 * 1024 * 1024
        if rssGrowth > rssLimit {
            failures.append(
                "the resident size grew by \(rssGrowth / 1024) KiB over the Contextual runs (limit \(rssLimit / 1024) KiB): "
                    + "something a request builds is kept; samples (KiB): \(rssSamples.map { $0 / 1024 })"
            )
        }

        // Best run of each: the one other processes on the machine disturbed least.
        let plain = plainRuns.map(\.rate).max() ?? 0
        let contextual = contextualRuns.map(\.rate).max() ?? 0
        let overhead = plain > 0 ? (1 - contextual / plain) * 100 : 0
        let plainPerCPU = plainRuns.map(\.ratePerCPUSecond).max() ?? 0
        let contextualPerCPU = contextualRuns.map(\.ratePerCPUSecond).max() ?? 0
        let cpuOverhead = plainPerCPU > 0 ? (1 - contextualPerCPU / plainPerCPU) * 100 : 0
        print("plain Hummingbird:  \(Int(plain)) req/s (rounds: \(plainRuns.map { Int($0.rate) }))")
        print("with Contextual:    \(Int(contextual)) req/s (rounds: \(contextualRuns.map { Int($0.rate) }))")
        print(
            String(
                format:
                    "overhead:           %.1f%% of the plain server's throughput (goal: at most 5%%; shown, not checked)",
                overhead
            )
        )
        print(
            String(
                format: "by CPU time:        %.1f µs per request plain, %.1f µs with Contextual (server and client): "
                    + "%.1f%% fewer requests per CPU second",
                1e6 / max(plainPerCPU, 1),
                1e6 / max(contextualPerCPU, 1),
                cpuOverhead
            )
        )
        print(
            "units of work:      \(audit.built) built, \(audit.shutDown) shut down, \(audit.repeatedShutdowns) shut down again"
        )
        print(
            "resident size:      growth \(rssGrowth / 1024) KiB over \(rssSamples.count) samples (limit \(rssLimit / 1024) KiB): "
                + "\(rssSamples.map { $0 / 1024 }) KiB"
        )
        if failures.isEmpty {
            print("load test: passed")
        } else {
            for failure in failures.prefix(20) { print("load test: FAILED: \(failure)") }
            print("load test: \(failures.count) failure(s)")
            exit(1)
        }
    }
}

/// The command line: `--requests`, `--connections`, `--seconds`.
struct Options {
    var requests = 20_000
    var connections = 32
    var seconds = 60

    init(_ arguments: ArraySlice<String>) throws {
        var arguments = arguments
        while let name = arguments.popFirst() {
            guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else {
                throw LoadTestError(
                    "\(name) needs a positive number: todo-load-test [--requests N] [--connections N] [--seconds N]"
                )
            }
            switch name {
            case "--requests": requests = value
            case "--connections": connections = value
            case "--seconds": seconds = value
            default:
                throw LoadTestError(
                    "unknown option \(name): todo-load-test [--requests N] [--connections N] [--seconds N]"
                )
            }
        }
    }
}

struct LoadTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What one run measured.
struct Run {
    var requests = 0
    var seconds = 0.0
    /// The process's CPU time (server and client), which other processes on the machine disturb less.
    var cpuSeconds = 0.0
    var failures: [String] = []

    var rate: Double { seconds > 0 ? Double(requests) / seconds : 0 }
    var ratePerCPUSecond: Double { cpuSeconds > 0 ? Double(requests) / cpuSeconds : 0 }

    static func += (total: inout Run, run: Run) {
        total.requests += run.requests
        total.seconds += run.seconds
        total.cpuSeconds += run.cpuSeconds
        total.failures += run.failures
    }
}

/// The CPU time this process has used, in seconds.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Sends `requests` requests to 127.0.0.1:`port` over `connections` keep-alive connections, each with an ID
/// of its own, and checks that each response names that ID and no other.
func hammer(
    port: Int,
    requests: Int,
    connections: Int,
    deadline: ContinuousClock.Instant,
    path: String = "/hello",
    tag: String
) async throws -> Run {
    let perConnection = max(1, requests / connections)
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = processCPUSeconds()
    let failures = try await withThrowingTaskGroup(of: [String].self) { group in
        for connection in 0..<connections {
            group.addTask {
                try await withLoopbackConnection(port: port) { http in
                    var failures: [String] = []
                    for index in 0..<perConnection {
                        if index % 256 == 0, clock.now > deadline {
                            throw LoadTestError("the load test ran out of time (its --seconds bound) at \(path)")
                        }
                        let id = "\(tag)-c\(connection)-\(index)"
                        let response = try await http.get(path, requestID: id)
                        if let failure = check(response, id: id, path: path) { failures.append(failure) }
                    }
                    return failures
                }
            }
        }
        var all: [String] = []
        for try await failures in group { all += failures }
        return all
    }
    let elapsed = start.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Run(
        requests: perConnection * connections,
        seconds: seconds,
        cpuSeconds: processCPUSeconds() - cpuStart,
        failures: failures
    )
}

/// What is wrong with the response to request `id`, if anything: another request's ID in it is cross-talk.
func check(_ response: LoopbackResponse, id: String, path: String) -> String? {
    let body = response.body
    guard response.status == .ok else { return "\(path) \(id): status \(response.status), body \(body)" }
    guard response.requestID == id else {
        return "\(path) \(id): cross-talk, x-request-id \(response.requestID ?? "none")"
    }
    switch path {
    case "/hello" where body != "hello \(id) \(id)":
        return "\(path) \(id): cross-talk, body '\(body)'"
    case "/todos/stream" where !body.hasSuffix("done by \(id), current \(id)\n"):
        return "\(path) \(id): cross-talk or a scope ended before the body, body '\(body)'"
    default:
        return nil
    }
}

/// Runs the Contextual server on an ephemeral port of 127.0.0.1 for `body`, then stops it gracefully and
/// checks that the app context was shut down after the server.
@MainActor
func withContextualServer(audit: ScopeAudit, _ body: (Int) async throws -> Void) async throws {
    let logger = Logger(label: "load-test", factory: { _ in SwiftLogNoOpLogHandler() })
    let ports = AsyncStream<Int>.makeStream()
    let (app, application) = try await buildApplication(
        config: ServerConfig(),
        audit: audit,
        host: "127.0.0.1",
        port: 0,
        logger: logger,
        onServerRunning: { ports.continuation.yield($0.localAddress?.port ?? 0) }
    )
    try await serveOnLoopback(application, ports: ports.stream, logger: logger, body)
    if !app.isEnded {
        throw LoadTestError("the app context was not shut down after the server stopped (AppContextService)")
    }
}

/// Runs the plain server on an ephemeral port of 127.0.0.1 for `body`.
@MainActor
func withPlainServer(_ body: (Int) async throws -> Void) async throws {
    let logger = Logger(label: "load-test", factory: { _ in SwiftLogNoOpLogHandler() })
    let store = try await TodoStore.open(path: nil)
    let router = makePlainRouter(config: ServerConfig(), store: store, audit: ScopeAudit(), logger: logger)
    let ports = AsyncStream<Int>.makeStream()
    let application = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { ports.continuation.yield($0.localAddress?.port ?? 0) },
        logger: logger
    )
    try await serveOnLoopback(application, ports: ports.stream, logger: logger, body)
    try await store.shutdown()
}

/// The process's resident size, in bytes, from /proc/self/statm (0 where there is none).
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// How much the resident size grew from the first sample to the highest later one.
func rssGrowth(_ samples: [Int]) -> Int {
    guard let first = samples.first, let highest = samples.dropFirst().max() else { return 0 }
    return max(0, highest - first)
}
