// swift-tools-version:6.2
import Foundation
import PackageDescription

// Contextual is a path dependency two folders up; a path dependency is identified by its folder's name,
// which depends on where the repository was cloned, so read it from this manifest's location.
let libraryPackage = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// A command-line tool embedding a library that reads its settings from the current context. A package of
// its own, so that the library keeps no dependencies.
let package = Package(
    name: "CommandLineTool",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TaskKit", targets: ["TaskKit"]),
        .executable(name: "taskrun", targets: ["taskrun"]),
    ],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The library: keys with defaults (verbosity, output, clock, retry policy) read from the current
        // context, and the test doubles (an immediate clock, a capturing output) the tool's tests use.
        .target(name: "TaskKit", dependencies: [.product(name: "Contextual", package: libraryPackage)]),
        // The command: its flags override the library's keys at the tool's root context.
        .target(
            name: "TaskRunCommand",
            dependencies: [
                "TaskKit",
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "taskrun", dependencies: ["TaskRunCommand"]),
        .testTarget(
            name: "TaskKitTests",
            dependencies: ["TaskKit", .product(name: "Contextual", package: libraryPackage)]
        ),
        .testTarget(
            name: "TaskRunCommandTests",
            dependencies: ["TaskRunCommand", "TaskKit", .product(name: "Contextual", package: libraryPackage)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
