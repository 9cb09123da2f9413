import Contextual

// A server's wiring: an app context built at boot (configuration, logger, a connection pool built by an
// async factory, one transaction per request), validated before serving; many concurrent requests, each
// in its own scope; a configuration reload while they run; and a clean shutdown. Modules, members of
// the app, say what they are and contribute routes and health checks.

let sink = LogSink()
let ledger = Ledger()
let app = Context(name: "app") {
    $0.config = AppConfig(databaseURL: "postgres://localhost/app", greeting: "Welcome")
    $0.logger = Logger(label: "app", sink: sink)
    $0.provide(ConnectionPool.self, lifetime: .singleton) { app in
        // The database refuses the first two connections; the retry waits on the context's clock.
        let (pool, waited) = try await retrying(in: app, attempts: 3, delay: .milliseconds(50)) { attempt in
            if attempt < 3 { throw ConnectionRefused() }
            return try await ConnectionPool.connect(to: app[\.config].databaseURL)
        }
        ledger.recordConnectWait(waited)
        return pool
    }
    $0.provide(Transaction.self, lifetime: .scoped) { request in
        Transaction(pool: try request.require(ConnectionPool.self), requestID: request[\.requestID], ledger: ledger)
    }
}

// Modules: members the app owns, each with a summary (a container value), routes and a health check.
_ = app.member(name: "accounts", ownership: .owned) {
    $0.containerValues.summary = "sign-in and sessions"
    $0.preferences.routes = ["/login", "/logout"]
    $0.preferences.healthChecks = ["sessions": HealthCheck { pool in pool.isOpen }]
}
_ = app.member(name: "billing", ownership: .owned) {
    $0.containerValues.summary = "invoices and refunds"
    $0.preferences.routes = ["/invoices", "/refunds"]
    $0.preferences.healthChecks = ["ledger": HealthCheck { pool in pool.isOpen }]
}

// Boot: build and check every provider now, so that a wiring mistake stops the server here; collect
// the modules' routes and health checks (a health check named twice would stop it here too).
try await app.prepare()
let pool = try await app.prepare(ConnectionPool.self)
let routes = app.preference(\.routes)
let healthChecks = try app.contributions(\.healthChecks)
var healthy: [String] = []
for (name, check) in healthChecks.sorted(by: { $0.key < $1.key }) where await check.check(pool) {
    healthy.append(name)
}

// Observe configuration reloads while requests run.
let reloads = app.observe(\.config) { config in
    ledger.recordReload()
    sink.write("[app] reloaded configuration: greeting is now '\(config.greeting)'")
}

// 200 requests at once, each in its own scope. Halfway, once the first 100 are served, the configuration
// is reloaded; the later 100, in flight meanwhile, wait for the reload before they handle the request,
// so that which requests see it is the same on every run.
let requestCount = 200
let reloaded = Gate()
let responses = try await withThrowingTaskGroup(of: Response.self) { group in
    for index in 1...requestCount {
        group.addTask {
            let id = "req-\(index)"
            return try await app.withScope(name: id) {
                $0.requestID = id
                $0.logger = Logger(label: id, sink: sink)
            } body: { request in
                try await Task.sleep(for: .milliseconds(index % 20))  // requests arrive over time
                if index > requestCount / 2 { await reloaded.wait() }  // the later half: after the reload
                return await request.run { await RequestHandler().handle(userID: index) }
            }
        }
    }
    var responses: [Response] = []
    for try await response in group {
        responses.append(response)
        if responses.count == requestCount / 2 {
            // The first half is served (the other half cannot finish before the gate opens): reload.
            app.update { $0.config.greeting = "Welcome back" }
            reloaded.open()
        }
    }
    return responses.sorted { $0.requestID < $1.requestID }
}
reloads.cancel()

// A request's wiring, as `wiringDescription` shows it.
let sample = app.scope(name: "req-sample") { $0.requestID = "req-sample" }
_ = try sample.require(Transaction.self)
let dump = sample.wiringDescription
try await sample.shutdown()

try await app.shutdown()

let committed = ledger.committed
// Each greeting, with how many requests saw it and the range of their numbers.
let byGreeting = Dictionary(grouping: responses) { String($0.text.split(separator: ",")[0]) }
let greetings = byGreeting.mapValues { seen in
    let numbers = seen.map { Int($0.requestID.dropFirst("req-".count)) ?? 0 }
    return "\(seen.count)x (req-\(numbers.min() ?? 0)…req-\(numbers.max() ?? 0))"
}
print("Contextual example: a server-style wiring")
print(
    "  modules:                    "
        + app.members.map { "\($0.name ?? "?") (\($0.containerValues.summary))" }.joined(separator: ", ")
)
print("  routes installed:           \(routes.joined(separator: " "))")
print("  health checks passing:      \(healthy.joined(separator: ", ")) (\(healthy.count) of \(healthChecks.count))")
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
        + greetings.sorted { $0.key < $1.key }.map { "'\($0.key)' \($0.value)" }.joined(separator: ", ")
)
print("  log lines:                  \(sink.all.count)")
print(
    "  clean shutdown:             pool drained: \(pool.isDrained ? "yes" : "NO"), app ended: \(app.isEnded ? "yes" : "NO")"
)
let terminal = app[\.terminal]
print("  pool connection retried:    2 times, waiting \(ledger.connectWait) on the context's clock")
print(
    reportLine(
        "  terminal:                   ",
        "\(terminal.isOutputTerminal ? "a terminal" : "not a terminal"), \(terminal.width) by \(terminal.height),"
            + " colour \(terminal.supportsColor ? "on" : "off"); this line is wrapped to its width",
        indent: 30,
        terminal: terminal
    )
)
print("")
print(dump)
