import Foundation
import Peers

// contextual-count: the performance targets, counted in instructions and allocations per operation, which
// do not depend on the machine's load (a 2-core CI runner shared with builds makes timings noisy).
//
// Each scenario is run alone under valgrind, at N and at 2N iterations after its set-up and a warm-up:
// (count(2N) − count(N)) / N is the cost of one operation, with start-up, set-up and warm-up taken out.
// Instructions come from callgrind (Ir), allocations from memcheck's "total heap usage" (every allocator
// entry point: malloc, calloc, realloc, memalign, posix_memalign, aligned_alloc; target i).
// Target g is counted in a debug build of this executable (`--debug-runner`). The valgrind runs are
// independent processes, so they run side by side, one a core (CountAll.swift).
//
// A target that is missed fails the run unless known-misses.txt lists it (its exact name, one a line);
// a listed target that is met is shown as such, so that its line can go.
//
// Usage:
//   contextual-count [--debug-runner PATH | --no-debug] [--known-misses FILE] [--output FILE] [--only PREFIX]
//                    [--jobs N]   (valgrind runs at a time: at most, and by default, the machine's cores)
//   contextual-count --run-one "group · system" [--iterations N] [--warm-up N] [--in-task]   (what valgrind runs)

// MARK: - Options

let usage = """
    usage: contextual-count [--debug-runner PATH | --no-debug] [--known-misses FILE] [--output FILE] [--only PREFIX]
                            [--jobs N]
           contextual-count --run-one "group · system" [--iterations N] [--warm-up N] [--in-task]
    """
var runOneName: String?
var iterations = 1_000
var warmUp = 100
var inTask = false
var debugRunner: String? = ".build-debug/debug/contextual-count"
var knownMissesFile = "known-misses.txt"
var outputFile: String?
/// Only the targets whose names start with this ("g." for target g, say).
var only = ""
/// How many valgrind runs at a time: each is one process on one core, and its counts do not depend on
/// what else runs.
var jobs = ProcessInfo.processInfo.activeProcessorCount
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--run-one": runOneName = arguments.next()
    case "--iterations": iterations = Int(arguments.next() ?? "") ?? iterations
    case "--warm-up": warmUp = Int(arguments.next() ?? "") ?? warmUp
    case "--in-task": inTask = true
    case "--debug-runner": debugRunner = arguments.next()
    case "--no-debug": debugRunner = nil
    case "--known-misses": knownMissesFile = arguments.next() ?? knownMissesFile
    case "--output": outputFile = arguments.next()
    case "--only": only = arguments.next() ?? ""
    // The runs go through `DispatchQueue.concurrentPerform`, which runs no more at a time than there are cores.
    case "--jobs": jobs = min(max(1, Int(arguments.next() ?? "") ?? jobs), ProcessInfo.processInfo.activeProcessorCount)
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
}

// MARK: - One scenario (under valgrind)

if let name = runOneName {
    // Kept until the exit, so that no run counts the set-up's teardown (see `runOne`).
    guard let prepared = runOne(name, iterations: iterations, warmUp: warmUp, inTask: inTask) else {
        FileHandle.standardError.write(Data("contextual-count: no scenario named '\(name)'\n".utf8))
        exit(2)
    }
    withExtendedLifetime(prepared) { exit(0) }
}

// MARK: - Every target

let targets = countTargets.filter { $0.name.hasPrefix(only) }
let releaseRunner = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
if let debugRunner, targets.contains(where: { $0.requirement.measures.contains { $0.build == .debug } }),
    !FileManager.default.isExecutableFile(atPath: debugRunner)
{
    print("contextual-count: no debug build at \(debugRunner) (target g); make it, in Benchmarks/, with")
    print("  swift build --product contextual-count --scratch-path .build-debug")
    print("or pass --no-debug to leave target g out")
    exit(2)
}
let directory = NSTemporaryDirectory() + "contextual-count-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
var measures: [Measure] = []
for target in targets {
    for measure in target.requirement.measures where !measures.contains(measure) { measures.append(measure) }
}
print(
    "contextual-count: \(targets.count) targets, \(measures.count) scenarios, each counted at N and 2N, "
        + "\(jobs) valgrind runs at a time"
)

let started = Date()
let figures = countAll(measures, releaseRunner: releaseRunner, debugRunner: debugRunner, jobs: jobs, in: directory)

// MARK: - Verdict

let knownMisses = Set(
    ((try? String(contentsOfFile: knownMissesFile, encoding: .utf8)) ?? "").split(separator: "\n")
        .map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty && !$0.hasPrefix("#") }
)
let judged = targets.map { judge($0, figures: figures, knownMisses: knownMisses) }
let table = markdownTable(judged)
print()
print(table)
if let outputFile {
    try table.write(toFile: outputFile, atomically: true, encoding: .utf8)
    print("wrote \(outputFile)")
}

let missed = judged.filter { $0.verdict == .missed }
let count = { (verdict: Verdict) in judged.filter { $0.verdict == verdict }.count }
let summary =
    "\(count(.met) + count(.metButListed)) of \(judged.count) targets met, \(count(.knownMiss)) known misses, "
    + "\(missed.count) missed, in \(Int(Date().timeIntervalSince(started).rounded())) s"
if !missed.isEmpty {
    print("contextual-count: FAILED: \(summary)")
    for entry in missed { print("  missed: \(entry.target.name)") }
    exit(1)
}
print("contextual-count: \(summary)")
