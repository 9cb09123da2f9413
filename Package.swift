// swift-tools-version:6.1
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
        // The README's code, verbatim (checked by .ci/check-readme.py), so that it cannot rot.
        .testTarget(name: "ContextualReadmeTests", dependencies: ["Contextual"]),
    ],
    swiftLanguageModes: [.v6]
)
