// What the request-scope middleware costs, without HTTP: `GET /hello` sent straight to the router's
// responder, with Contextual (the middleware, the ServiceContext bridge, a handler with four `@Injected`
// properties, a scoped unit of work) and in plain Hummingbird (the same work by hand), each counted under
// valgrind: instructions (callgrind) and allocations (memcheck) per request, as the difference between
// runs of N and 2N requests, so that start-up and set-up cancel out.
//
// swift run -c release todo-request-count [--requests N] [--max-instructions N] [--max-allocations N]
//   counts both variants and prints them; fails when Contextual's work beyond the plain request is over
//   either maximum.
// todo-request-count --run contextual|plain --requests N   (what valgrind runs)

import Contextual
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import TodoServer

// MARK: - One run (under valgrind)

/// Sends `requests` requests of `GET /hello` to `variant`'s router, after 500 to warm it up.
func run(variant: String, requests: Int) async throws {
    let logger = Logger(label: "count", factory: { _ in SwiftLogNoOpLogHandler() })
    let responder: RouterResponder<BasicRequestContext>
    var app: Context?
    if variant == "contextual" {
        let context = makeAppContext(config: ServerConfig(), logger: logger)
        try await context.prepare()
        responder = makeRouter(app: context).buildResponder()
        app = context
    } else {
        let store = try await TodoStore.open(path: nil)
        responder = makePlainRouter(config: ServerConfig(), store: store, audit: ScopeAudit(), logger: logger)
            .buildResponder()
    }
    let channel = EmbeddedChannel()
    let context = BasicRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
    let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/hello")
    for _ in 0..<(500 + requests) {
        let response = try await responder.respond(
            to: Request(head: head, body: RequestBody(buffer: ByteBuffer())),
            context: context
        )
        guard response.status == .ok else { throw CountError("GET /hello answered \(response.status)") }
    }
    try await app?.shutdown()
}

// MARK: - Counting

struct CountError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `command` (through `env`, so found on the `PATH`); returns what it printed, or throws what it
/// printed when it fails.
func execute(_ command: [String], environment: [String: String] = [:]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        let failed = command.joined(separator: " ")
        throw CountError("\(failed) exited with \(process.terminationStatus):\n\(text.suffix(2000))")
    }
    return text
}

/// This program without its debug information, which valgrind 3.19 can't read in a binary this large
/// (DWARF 5 from the C code GRDB builds): callgrind counts instructions without it.
func stripDebugInformation() -> String {
    let name = "todo-request-count-\(getpid())"
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
    do {
        // This program's file, however it was started (by path or through the PATH): /proc/self/exe read
        // here, since objcopy's own would name objcopy.
        let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        _ = try execute(["objcopy", "--strip-debug", program, path])
    } catch {
        fatalError("todo-request-count needs objcopy (binutils) to strip its debug information: \(error)")
    }
    return path
}

/// Runs `program` (this one, stripped) under valgrind with `tool` for `variant` and `requests`; returns
/// valgrind's output.
func valgrind(_ tool: [String], program: String, variant: String, requests: Int) throws -> String {
    // Swift seeds its hashing per process: a fixed seed makes the runs at N and 2N count the same work.
    try execute(
        ["valgrind"] + tool + [program, "--run", variant, "--requests", String(requests)],
        environment: ["SWIFT_DETERMINISTIC_HASHING": "1"]
    )
}

/// The number after the first of `labels` found in valgrind's output (thousands separators skipped).
func number(after labels: [String], in output: String) throws -> Int {
    for line in output.split(separator: "\n") {
        for label in labels {
            guard let range = line.range(of: label) else { continue }
            let digits = line[range.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber || $0 == "," }
            if let value = Int(digits.filter(\.isNumber)) { return value }
        }
    }
    throw CountError("no \(labels[0]) in valgrind's output:\n\(output.suffix(2000))")
}

/// Instructions and allocations per request of each of `variants`: the counts at 2N minus those at N,
/// over N.
///
/// The valgrind runs (two tools, two sizes, each variant) run side by side, one a core: valgrind runs a
/// program's threads one at a time, so each run keeps one core busy, and its counts are those of an
/// independent process whatever runs beside it.
func count(
    _ program: String,
    variants: [String],
    requests: Int
) throws -> [String: (instructions: Int, allocations: Double)] {
    let callgrind = ["--tool=callgrind", "--callgrind-out-file=/dev/null"]
    let memcheck = ["--tool=memcheck", "--leak-check=no", "--undef-value-errors=no"]
    let tools = [
        (tool: callgrind, labels: ["Collected :", "I   refs:"]),
        (tool: memcheck, labels: ["total heap usage:"]),
    ]
    // One run per variant, tool and size; its count goes to the same index of `counts`.
    let runs = variants.flatMap { variant in
        tools.flatMap { tool in [requests, 2 * requests].map { (variant, tool.tool, tool.labels, $0) } }
    }
    let counts = Mutex<[Result<Int, any Error>?]>(Array(repeating: nil, count: runs.count))
    DispatchQueue.concurrentPerform(iterations: runs.count) { index in
        let (variant, tool, labels, size) = runs[index]
        let result = Result { () throws -> Int in
            try number(after: labels, in: valgrind(tool, program: program, variant: variant, requests: size))
        }
        counts.withLock { $0[index] = result }
    }
    let measured = try counts.withLock { try $0.map { try $0!.get() } }
    var perRequest: [String: (instructions: Int, allocations: Double)] = [:]
    for (offset, variant) in variants.enumerated() {
        // The variant's runs, in the order made above: callgrind at N and 2N, then memcheck at N and 2N.
        let runs = Array(measured[(4 * offset)..<(4 * offset + 4)])
        perRequest[variant] = (
            (runs[1] - runs[0]) / requests,
            Double(runs[3] - runs[2]) / Double(requests)
        )
    }
    return perRequest
}

// MARK: - Main

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex else {
        return nil
    }
    return arguments[arguments.index(after: index)]
}
let requests = max(1, option("--requests").flatMap(Int.init) ?? 2_000)
if let variant = option("--run") {
    // A synchronous main that waits for a task: valgrind 3.19 crashes when an async main parks the main
    // thread in dispatch's signal handling.
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            try await run(variant: variant, requests: requests)
        } catch {
            FileHandle.standardError.write(Data("todo-request-count: \(error)\n".utf8))
            exit(1)
        }
        done.signal()
    }
    done.wait()
    exit(0)
} else {
    let program = stripDebugInformation()
    defer { try? FileManager.default.removeItem(atPath: program) }
    let counts = try count(program, variants: ["plain", "contextual"], requests: requests)
    let plain = counts["plain"]!
    let contextual = counts["contextual"]!
    let extraInstructions = contextual.instructions - plain.instructions
    let extraAllocations = contextual.allocations - plain.allocations
    func format(_ value: Double) -> String { String(format: "%.1f", value) }
    print("GET /hello through the router's responder, no HTTP (\(requests) requests, valgrind):")
    print("| per request | instructions | allocations |")
    print("|---|---:|---:|")
    print("| plain Hummingbird | \(plain.instructions) | \(format(plain.allocations)) |")
    print("| with Contextual's request scope | \(contextual.instructions) | \(format(contextual.allocations)) |")
    print("| Contextual's work (the difference) | \(extraInstructions) | \(format(extraAllocations)) |")
    var failures: [String] = []
    if let limit = option("--max-instructions").flatMap(Int.init), extraInstructions > limit {
        failures.append("Contextual's work is \(extraInstructions) instructions per request, over \(limit)")
    }
    if let limit = option("--max-allocations").flatMap(Double.init), extraAllocations > limit {
        failures.append(
            "Contextual's work is \(format(extraAllocations)) allocations per request, over \(format(limit))"
        )
    }
    for failure in failures { print("FAILED: \(failure)") }
    if !failures.isEmpty {
        try? FileManager.default.removeItem(atPath: program)  // exit skips the defer
        exit(1)
    }
}
