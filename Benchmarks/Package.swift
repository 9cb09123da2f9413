// swift-tools-version:6.1
import Foundation
import PackageDescription

// A path dependency is identified by its folder's name, which depends on where the repository was
// cloned; read it from this manifest's location rather than assuming one.
let libraryPackage = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

// The benchmarks of Contextual, side by side with its peers, in one process. A package of its own so that
// the library itself keeps no dependencies.
let package = Package(
    name: "ContextualBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/Swinject/Swinject", from: "2.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        // The same work written for every system: Contextual, Swinject, swift-dependencies and baselines.
        .target(
            name: "Peers",
            dependencies: [
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Dependencies", package: "swift-dependencies"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // package-benchmark: time, allocations and instructions per scenario, with stored thresholds.
        .executableTarget(
            name: "ContextualBenchmarks",
            dependencies: [
                "Peers",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ContextualBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The side-by-side table, the chart and the ratio check.
        .executableTarget(name: "contextual-compare", dependencies: ["Peers"], path: "Sources/ContextualCompare"),
        // Instructions and allocations per operation under valgrind, and the performance targets on them.
        .executableTarget(name: "contextual-count", dependencies: ["Peers"], path: "Sources/ContextualCount"),
        // Reads inside `swift test`: Contextual in production and in a test context, and a
        // swift-dependencies read, which behaves differently when it runs inside a test.
        .testTarget(
            name: "InSwiftTestReads",
            dependencies: [
                .product(name: "Contextual", package: libraryPackage),
                .product(name: "ContextualTesting", package: libraryPackage),
                .product(name: "Dependencies", package: "swift-dependencies"),
            ],
            path: "Tests/InSwiftTestReads"
        ),
    ],
    swiftLanguageModes: [.v6]
)
