// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "Contextual",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "Contextual", targets: ["Contextual"]),
        // Swift Testing traits and helpers for tests of code that reads contexts (the toolchain's Testing).
        .library(name: "ContextualTesting", targets: ["ContextualTesting"]),
        .executable(name: "contextual-example", targets: ["ContextualExample"]),
    ],
    targets: [
        .target(name: "Contextual"),
        .target(name: "ContextualTesting", dependencies: ["Contextual"]),
        .executableTarget(name: "ContextualExample", dependencies: ["Contextual"]),
        .testTarget(name: "ContextualTests", dependencies: ["Contextual"]),
        .testTarget(name: "ContextualTestingTests", dependencies: ["Contextual", "ContextualTesting"]),
        // The code of the README and of the DocC articles, verbatim (checked by .ci/check-docs.py).
        .testTarget(name: "ContextualDocumentationTests", dependencies: ["Contextual", "ContextualTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
