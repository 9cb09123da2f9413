// swift-tools-version:6.1
import Foundation
import PackageDescription

// A path dependency is identified by its folder's name, which depends on where the repository was
// cloned; read it from this manifest's location rather than assuming one.
let libraryPackage = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

// The fuzz targets of Contextual: one per parser of outside input, each a static library defining
// `LLVMFuzzerTestOneInput`, built with `-sanitize=fuzzer,address` and linked with libFuzzer's `main` by
// `.ci/fuzz` (see README.md). A package of its own so that the library itself keeps no build settings of
// fuzzing.
let package = Package(
    name: "ContextualFuzz",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FuzzBootReport", type: .static, targets: ["FuzzBootReport"]),
        .library(name: "FuzzEnvironmentVariables", type: .static, targets: ["FuzzEnvironmentVariables"]),
    ],
    dependencies: [
        .package(path: "..")
    ],
    targets: [
        // Boot-report JSON, as a baseline is read: decoded, refused with a message, or written back equal.
        .target(
            name: "FuzzBootReport",
            dependencies: [.product(name: "Contextual", package: libraryPackage)]
        ),
        // Typed reads of an environment variable's value, as every supported type.
        .target(
            name: "FuzzEnvironmentVariables",
            dependencies: [.product(name: "Contextual", package: libraryPackage)]
        ),
        // Writes the seed corpus of boot reports: real reports made by the library (`swift run fuzz-seeds`).
        .executableTarget(
            name: "fuzz-seeds",
            dependencies: [.product(name: "Contextual", package: libraryPackage)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
