// swift-tools-version:6.2
// Coverage-guided fuzz targets (libFuzzer) for MockCollab's parsers of untrusted input. Built apart
// from the main package, only the modules each target needs, with `--sanitize=fuzzer`:
//
//   scripts/fuzz                  build and run every target briefly (what CI does)
//   scripts/fuzz --seconds 600    a longer run; see docs/FUZZING.md
import PackageDescription

let package = Package(
    name: "mock-collab-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "mock-collab", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // The MCF1 co-browsing frame header decoder and the checks every frame passes.
        .executableTarget(
            name: "FuzzFrameHeader",
            dependencies: [.product(name: "CollabWire", package: "mock-collab")]
        ),
        // JSON decoding of the request bodies the Web, mobile, agent and control APIs take.
        .executableTarget(
            name: "FuzzRequestJSON",
            dependencies: [.product(name: "CollabWire", package: "mock-collab")]
        ),
        // The seed loader (YAML and JSON), with its size, anchor and node bounds.
        .executableTarget(
            name: "FuzzSeed",
            dependencies: [.product(name: "CollabSeed", package: "mock-collab")]
        ),
        // The snapshot reader, and what the server does with the accounts it restores.
        .executableTarget(
            name: "FuzzSnapshot",
            dependencies: [.product(name: "CollabSeed", package: "mock-collab"), .product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
