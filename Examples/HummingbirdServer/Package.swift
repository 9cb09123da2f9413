// swift-tools-version:6.2
import Foundation
import PackageDescription

// Contextual is a path dependency two folders up; a path dependency is identified by its folder's name,
// which depends on where the repository was cloned, so read it from this manifest's location.
let libraryPackage = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// A Hummingbird 2 server wired with Contextual: swift-log, swift-service-lifecycle, SQLite through GRDB and
// ServiceContext. A package of its own, so that the library keeps no dependencies.
let package = Package(
    name: "HummingbirdServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TodoServer", targets: ["TodoServer"]),
        .executable(name: "todo-server", targets: ["todo-server"]),
        .executable(name: "todo-load-test", targets: ["todo-load-test"]),
        .executable(name: "todo-boot-report", targets: ["todo-boot-report"]),
        .executable(name: "todo-request-count", targets: ["todo-request-count"]),
    ],
    dependencies: [
        .package(path: "../.."),
        // Without Hummingbird's own swift-configuration support (a default trait): the server applies its
        // configuration to the app context (ConfigurationSource, Configuration.swift).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-service-context", from: "1.5.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Configuration from a JSON file kept current (ReloadingFileProvider) and environment variables.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["JSON", "Reloading"]),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // W3C trace context (`traceparent`), for traces that continue across services.
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context", from: "1.0.0"),
    ],
    targets: [
        // The wiring: the app context, its providers, the request-scope middleware, the error mapping, the
        // logger's metadata provider, the ServiceContext bridge and the lifecycle service. Also the plain
        // Hummingbird variant of the same endpoints, for comparison.
        .target(
            name: "TodoServer",
            dependencies: [
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceContextModule", package: "swift-service-context"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                "LoopbackHTTP",
            ]
        ),
        .executableTarget(
            name: "todo-server",
            dependencies: ["TodoServer", .product(name: "Tracing", package: "swift-distributed-tracing")]
        ),
        // The boot report of the server's wiring, compared in CI with boot-baseline.json.
        .executableTarget(
            name: "todo-boot-report",
            dependencies: [
                "TodoServer",
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A small HTTP/1.1 client for 127.0.0.1, and a way to serve an application on it: the tests and
        // the load test share them. (Not HummingbirdTesting: it brings AsyncHTTPClient and swift-nio-ssl,
        // whose BoringSSL made this package's release build 1.5 times as long on CI's 2-core machine.)
        .target(
            name: "LoopbackHTTP",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The load test: both variants on 127.0.0.1, bounded in requests and time.
        .executableTarget(
            name: "todo-load-test",
            dependencies: [
                "TodoServer",
                "LoopbackHTTP",
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The middleware's cost without HTTP, in instructions and allocations per request (valgrind).
        .executableTarget(
            name: "todo-request-count",
            dependencies: [
                "TodoServer",
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // The wiring's tests, against the server on 127.0.0.1.
        .testTarget(
            name: "TodoServerTests",
            dependencies: [
                "TodoServer",
                "LoopbackHTTP",
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceContextModule", package: "swift-service-context"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
