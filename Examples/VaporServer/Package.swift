// swift-tools-version:6.2
import Foundation
import PackageDescription

// Contextual is a path dependency two folders up; a path dependency is identified by its folder's name,
// which depends on where the repository was cloned, so read it from this manifest's location.
let libraryPackage = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// The Vapor recipe of the "Using Contextual with Vapor" article, with its tests against the server on
// 127.0.0.1 (`swift test`).
let package = Package(
    name: "VaporServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .executableTarget(
            name: "VaporTodoServer",
            dependencies: [
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "VaporTodoServerTests",
            dependencies: [
                "VaporTodoServer",
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "VaporTesting", package: "vapor"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
