// A small HTTP/1.1 client for 127.0.0.1 and a way to run an application on an ephemeral port of it: what
// the tests and the load test share, and what the server's relay calls its peer with. It costs little, so
// that the server's work shows in the load test's figures, and it needs no TLS, so that the package builds
// without BoringSSL (HummingbirdTesting brings AsyncHTTPClient and swift-nio-ssl, which made the release
// build 1.5 times as long on CI's machine).

import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// A response, as the loopback client reads it.
///
/// ```swift
/// let response = try await http.get("/hello", requestID: "r-1")
/// response.status == .ok
/// ```
public struct LoopbackResponse: Sendable {
    /// The status.
    public var status: HTTPResponseStatus
    /// The headers.
    public var headers: HTTPHeaders
    /// The body, as text.
    public var body: String

    /// The `x-request-id` header.
    ///
    /// ```swift
    /// response.requestID  // "r-1"
    /// ```
    public var requestID: String? { headers.first(name: "x-request-id") }
}

/// Failures of the loopback client and of `serveOnLoopback`.
///
/// ```swift
/// catch let error as LoopbackError { print(error) }
/// ```
public struct LoopbackError: Error, CustomStringConvertible {
    /// What went wrong, and what to check.
    public let description: String
}

/// One keep-alive HTTP/1.1 connection to 127.0.0.1, sending one request at a time.
///
/// ```swift
/// try await withLoopbackConnection(port: port) { http in try await http.get("/hello") }
/// ```
public struct LoopbackConnection {
    var inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>

    /// Sends `GET path`, with `x-request-id` when given and `headers`, and reads the whole response.
    ///
    /// ```swift
    /// let response = try await http.get("/hello", requestID: "r-1")
    /// ```
    public mutating func get(
        _ path: String,
        requestID: String? = nil,
        headers: [(name: String, value: String)] = []
    ) async throws -> LoopbackResponse {
        try await send(.GET, path, requestID: requestID, headers: headers, body: nil)
    }

    /// Sends `POST path` with `body`, and reads the whole response.
    ///
    /// ```swift
    /// let response = try await http.post("/todos", body: "ship")
    /// ```
    public mutating func post(_ path: String, requestID: String? = nil, body: String) async throws -> LoopbackResponse {
        try await send(.POST, path, requestID: requestID, headers: [], body: body)
    }

    mutating func send(
        _ method: HTTPMethod,
        _ path: String,
        requestID: String?,
        headers: [(name: String, value: String)],
        body: String?
    ) async throws -> LoopbackResponse {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "host", value: "127.0.0.1")
        if let requestID { head.headers.add(name: "x-request-id", value: requestID) }
        for header in headers { head.headers.add(name: header.name, value: header.value) }
        if let body {
            head.headers.add(name: "content-length", value: "\(body.utf8.count)")
            try await outbound.write(contentsOf: [.head(head), .body(.byteBuffer(ByteBuffer(string: body))), .end(nil)])
        } else {
            try await outbound.write(contentsOf: [.head(head), .end(nil)])
        }
        var response = LoopbackResponse(status: .ok, headers: [:], body: "")
        while let part = try await inbound.next() {
            switch part {
            case .head(let head):
                response.status = head.status
                response.headers = head.headers
            case .body(let buffer):
                response.body += String(buffer: buffer)
            case .end:
                return response
            }
        }
        throw LoopbackError(
            description: "the server closed the connection during \(method) \(path): is it still running?"
        )
    }
}

/// Runs `body` with a connection to 127.0.0.1:`port`, then closes it.
///
/// ```swift
/// let text = try await withLoopbackConnection(port: port) { http in try await http.get("/hello").body }
/// ```
public func withLoopbackConnection<Result: Sendable>(
    port: Int,
    _ body: (inout LoopbackConnection) async throws -> Result
) async throws -> Result {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                    wrappingChannelSynchronously: channel
                )
            }
        }
    return try await channel.executeThenClose { inbound, outbound in
        var connection = LoopbackConnection(inbound: inbound.makeAsyncIterator(), outbound: outbound)
        return try await body(&connection)
    }
}

/// Runs `application` in a service group until `body`, given the port it listens on, returns; then shuts
/// the group down gracefully and waits for it, so that its services (the app context's) have ended.
///
/// `ports` is the stream the application's `onServerRunning` yields its port to.
///
/// ```swift
/// let ports = AsyncStream<Int>.makeStream()
/// let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
///                               onServerRunning: { ports.continuation.yield($0.localAddress?.port ?? 0) })
/// try await serveOnLoopback(application, ports: ports.stream, logger: logger) { port in … }
/// ```
public func serveOnLoopback(
    isolation: isolated (any Actor)? = #isolation,
    _ application: some ApplicationProtocol,
    ports: AsyncStream<Int>,
    logger: Logger,
    _ body: (Int) async throws -> Void
) async throws {
    let group = ServiceGroup(services: [application], logger: logger)
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            throw LoopbackError(
                description: "the server did not report its port: give the application an onServerRunning that yields "
                    + "$0.localAddress?.port to the `ports` stream"
            )
        }
        do {
            try await body(port)
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}
