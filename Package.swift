// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "Contextual",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "Contextual", targets: ["Contextual"]),
        .executable(name: "contextual-example", targets: ["ContextualExample"]),
    ],
    targets: [
        .target(name: "Contextual"),
        .executableTarget(name: "ContextualExample", dependencies: ["Contextual"]),
        .testTarget(name: "ContextualTests", dependencies: ["Contextual"]),
        // The code of the README and of the DocC articles, verbatim (checked by .ci/check-docs.py).
        .testTarget(name: "ContextualDocumentationTests", dependencies: ["Contextual"]),
    ],
    swiftLanguageModes: [.v6]
)
