// Writes the seed corpus of the fuzz targets: boot reports made by the library, and environment values.

import Contextual
import Foundation

// MARK: - Wirings

final class Config: Sendable {}
final class Pool: Sendable {}
final class Repository: Sendable {}
final class Handler: Sendable {}
final class Plugin: Sendable {}
final class Loop: Sendable {}
final class Back: Sendable {}
protocol Store: Sendable {}
final class MemoryStore: Store {}
struct Refused: Error {}

/// Handler (scoped) → Repository → Pool → Config.
func chain() -> Context {
    Context(name: "app") {
        $0.provide(Config.self, lifetime: .singleton) { _ in Config() }
        $0.provide(Pool.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Config.self)
            return Pool()
        }
        $0.provide(Repository.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Pool.self)
            return Repository()
        }
        $0.provide(Handler.self, lifetime: .scoped) { ctx in
            _ = try ctx.require(Repository.self)
            return Handler()
        }
    }
}

/// A failure, a missing dependency, a cycle, three providers of one type, a transient and a forwarding.
func mixed() -> Context {
    Context(name: "mixed") {
        $0.provide(Pool.self, lifetime: .singleton) { _ in throw Refused() }
        $0.provide(Repository.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Config.self)
            return Repository()
        }
        $0.provide(Loop.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Back.self)
            return Loop()
        }
        $0.provide(Back.self, lifetime: .singleton) { ctx in
            _ = try ctx.require(Loop.self)
            return Back()
        }
        for _ in 0..<3 { $0.addProvider(Plugin.self, lifetime: .singleton) { _ in Plugin() } }
        $0.provide(Handler.self, lifetime: .transient) { ctx in
            _ = try ctx.requireAll(Plugin.self)
            return Handler()
        }
        $0.provide(MemoryStore.self, lifetime: .singleton) { _ in MemoryStore() }
        $0.forward((any Store).self, to: MemoryStore.self)
    }
}

/// A factory still running at the report's deadline.
func slow() -> Context {
    Context(name: "slow") {
        $0.provide(Pool.self, lifetime: .singleton) { _ in
            try await Task.sleep(for: .seconds(1))
            return Pool()
        }
        $0.provide(Config.self, lifetime: .singleton) { _ in Config() }
    }
}

// MARK: - Writing

let corpus = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "Corpus")
let reports = corpus.appendingPathComponent("FuzzBootReport")
let values = corpus.appendingPathComponent("FuzzEnvironmentVariables")
for directory in [reports, values] {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
}

let warm = chain()
_ = try warm.scope(name: "warm").require(Handler.self)
let seeds: [(String, BootReport)] = [
    ("chain", await chain().bootReport()),
    ("mixed", await mixed().bootReport()),
    ("deadline", await slow().bootReport(deadline: .milliseconds(50))),
    ("built-before", await warm.bootReport()),
    ("empty", await Context(name: "empty").bootReport()),
]
for (name, report) in seeds {
    try report.json.write(to: reports.appendingPathComponent("\(name).json"), atomically: true, encoding: .utf8)
}

let environmentValues: [(String, String)] = [
    ("port", "8080"), ("spaced-number", " -42\t"), ("double", "0.5"), ("exponent", "-1.5e-3"), ("infinity", "inf"),
    ("yes", "YES"), ("off", "off"), ("url", "postgres://user@db:5432/app?sslmode=require"),
    ("relative-url", "db/app"), ("level", "Info"), ("text", "hello, world"),
    ("unicode", "caf\u{E9} \u{1F600}"),
]
for (name, value) in environmentValues {
    try value.write(to: values.appendingPathComponent(name), atomically: true, encoding: .utf8)
}
print("wrote \(seeds.count) boot reports and \(environmentValues.count) values to \(corpus.path)")
