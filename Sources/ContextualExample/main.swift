import Contextual

// A server's wiring: an app context built at boot (configuration, logger, a connection pool built by an
// async factory, one transaction per request), validated before serving; many concurrent requests, each
// in its own scope; a configuration reload while they run; and a clean shutdown.

let sink = LogSink()
let ledger = Ledger()
let app = Context(name: "app") {
    $0.config = AppConfig(databaseURL: "postgres://localhost/app", greeting: "Welcome")
    $0.logger = Logger(label: "app", sink: sink)
    $0.provide(ConnectionPool.self, lifetime: .singleton) { app in
        try await ConnectionPool.connect(to: app[\.config].databaseURL)
    }
    $0.provide(Transaction.self, lifetime: .scoped) { request in
        Transaction(pool: try request.require(ConnectionPool.self), requestID: request[\.requestID], ledger: ledger)
    }
}

// Boot: build and check every provider now, so that a wiring mistake stops the server here.
try await app.validateAsync()
let pool = try await app.resolveAsync(ConnectionPool.self)

// Observe configuration reloads while requests run.
let reloads = app.observe(\.config) { config in
    ledger.recordReload()
    sink.write("[app] reloaded configuration: greeting is now '\(config.greeting)'")
}

let requestCount = 200
let responses = try await withThrowingTaskGroup(of: Response.self) { group in
    for index in 1...requestCount {
        group.addTask {
            let id = "req-\(index)"
            return try await app.withScope(name: id) {
                $0.requestID = id
                $0.logger = Logger(label: id, sink: sink)
            } body: { request in
                try await Task.sleep(for: .milliseconds(index % 20))  // requests arrive over time
                return await request.run { await RequestHandler().handle(userID: index) }
            }
        }
    }
    var responses: [Response] = []
    for try await response in group {
        responses.append(response)
        if responses.count == requestCount / 2 {
            app.update { $0.config.greeting = "Welcome back" }  // a reload, while the other half runs
        }
    }
    return responses.sorted { $0.requestID < $1.requestID }
}
reloads.cancel()

// A request's wiring, as `dump()` shows it.
let sample = app.scope(name: "req-sample") { $0.requestID = "req-sample" }
_ = try sample.require(Transaction.self)
let dump = sample.dump()
try await sample.shutdown()

try await app.shutdown()

let committed = ledger.committed
let greetings = Dictionary(grouping: responses, by: { $0.text.split(separator: ",")[0] }).mapValues(\.count)
print("Contextual example: a server-style wiring")
print("  requests served:            \(responses.count), concurrently, each in its own scope")
print("  each saw only its own ID:   \(responses.allSatisfy(\.isolated) ? "yes" : "NO")")
let committedByRequests = responses.filter { committed[$0.transaction] == $0.requestID }.count
print(
    "  transactions:               \(Set(responses.map(\.transaction)).count) distinct, \(committedByRequests) committed as their scope ended"
)
print(
    "  pool:                       built once, \(pool.queryCount) queries, \(pool.transactionCount) transactions (with validation's and the sample's)"
)
print("  config reloads observed:    \(ledger.reloads)")
print(
    "  greetings seen:             "
        + greetings.sorted { $0.key < $1.key }.map { "'\($0.key)' \($0.value)x" }.joined(separator: ", ")
)
print("  log lines:                  \(sink.all.count)")
print(
    "  clean shutdown:             pool drained: \(pool.isDrained ? "yes" : "NO"), app ended: \(app.isEnded ? "yes" : "NO")"
)
print("")
print(dump)
