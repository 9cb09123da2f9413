import Contextual

// The app context, built once at boot: configuration, a logger and a connection pool.
let sink = LogSink()
let pool = ConnectionPool(url: "postgres://localhost/app")
let app = Context(name: "app") {
    $0.config = AppConfig(databaseURL: pool.url, greeting: "Welcome")
    $0.logger = Logger(label: "app", sink: sink)
    $0.provide(pool)
}

// Many requests at once, each in a child context with its own request ID and logger label.
let responses = await withTaskGroup(of: (Int, String).self) { group in
    for index in 1...8 {
        let id = "req-\(index)"
        let request = app.child(name: id) {
            $0.requestID = id
            $0.logger = Logger(label: id, sink: sink)
        }
        group.addTask {
            await request.run { (index, await RequestHandler().handle(userID: index * 10)) }
        }
    }
    var responses: [(Int, String)] = []
    for await response in group { responses.append(response) }
    return responses.sorted { $0.0 < $1.0 }.map(\.1)
}

print("Contextual example: an app context and \(responses.count) concurrent requests")
for response in responses { print("  \(response)") }
let isolated = responses.enumerated().allSatisfy { offset, response in response.hasSuffix("(req-\(offset + 1))") }
print("Every request saw only its own request ID: \(isolated ? "yes" : "NO")")
print("Queries run on the shared pool: \(pool.queryCount); log lines: \(sink.all.count)")
