// swift-tools-version:6.2
import PackageDescription

/// Upcoming features the house style asks for (see ../shared/STYLE.md).
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "mock-collab",
    // Apple platforms are for the client products (CollabClient, CollabWire): the `Synchronization`
    // module (Mutex) needs macOS 15 / iOS 18. The server and tools build on Linux and macOS.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "mock-collab", targets: ["mock-collab"]),
        .library(name: "CollabClient", targets: ["CollabClient"]),
        .library(name: "CollabWire", targets: ["CollabWire"]),
        // Seed parsing on its own (with the domain model it yields), for the fuzz targets in Fuzz/.
        .library(name: "CollabSeed", targets: ["CollabSeed", "CollabCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.2.0"),
        // `swift package generate-documentation --target CollabClient` (scripts/test runs it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Domain rules without I/O: entities, roles, search, configuration cascade, seed model.
        .target(
            name: "CollabCore",
            dependencies: [
                "CollabWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        // Seeds from YAML or JSON text, bounded (size, no anchors or aliases).
        .target(
            name: "CollabSeed",
            dependencies: [
                "CollabCore",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // Durable storage behind one protocol: in-memory, SQLite and PostgreSQL backends.
        .target(
            name: "CollabStore",
            dependencies: [
                "CollabCore",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Push delivery: compose → encrypt → outbox → sinks (APNs HTTP/2, simulator files).
        .target(
            name: "CollabPush",
            dependencies: [
                "CollabCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        // TLS material: the development CA, server and client certificates, SHA-256 pins, PKCS#12 export.
        .target(
            name: "CollabTLS",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // An APNs-compatible HTTP/2 receiver (`mock-collab apns-sim`) for tests and push-sender teams.
        .target(
            name: "APNsSimulator",
            dependencies: [
                "CollabTLS",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Codable wire types shared by the server and the client library.
        .target(
            name: "CollabWire",
            dependencies: [],
            swiftSettings: swiftSettings
        ),
        // The Hummingbird application: one folder per API surface.
        .target(
            name: "CollabServer",
            dependencies: [
                "CollabCore",
                "CollabSeed",
                "CollabPush",
                "CollabStore",
                "CollabWire",
                "CollabTLS",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            resources: [.copy("Resources/openapi.json"), .copy("Resources/Public")],
            swiftSettings: swiftSettings
        ),
        // The companion client library (Linux, macOS, iOS 18; see docs/client-library.md, "Platforms").
        .target(
            name: "CollabClient",
            dependencies: [
                "CollabWire",
                "CollabTLS",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The load generator behind `mock-collab load`: simulated visitors and agents on CollabClient,
        // HDR-histogram latencies, JSON and HTML reports.
        .target(
            name: "CollabLoad",
            dependencies: [
                "CollabClient",
                "CollabWire",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // `mock-collab seed export`: reads an account through the vendor's Web API v4 and writes it as a seed.
        .target(
            name: "CollabSeedExport",
            dependencies: [
                "CollabClient", "CollabCore", "CollabSeed", "CollabWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "mock-collab",
            dependencies: [
                "CollabLoad",
                "CollabServer",
                "CollabPush",
                "CollabClient",
                "CollabWire",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                "APNsSimulator",
                "CollabTLS",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "CollabCore",
                "CollabSeed",
                "CollabSeedExport",
                "CollabStore",
            ],
            swiftSettings: swiftSettings
        ),
        // Tests: one target per module, each depending on what it tests; the server's end-to-end tests
        // (the binary, clusters, nginx, TLS, APNs over HTTP/2, the load tool) in EndToEndTests.
        .testTarget(
            name: "CollabCoreTests",
            dependencies: ["CollabCore", "CollabWire", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CollabWireTests",
            dependencies: ["CollabWire"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CollabStoreTests",
            dependencies: [
                "CollabStore", "CollabCore", "CollabWire",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CollabPushTests",
            dependencies: [
                "CollabTestSupport",
                "CollabPush", "CollabCore", "CollabWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CollabClientTests",
            dependencies: [
                "CollabClient", "CollabWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the server tests and the end-to-end tests share: a server on a socket, the fixtures both
        // seed with, receivers for webhooks, collectors for live events, the binary as a process.
        .target(
            name: "CollabTestSupport",
            dependencies: [
                "CollabServer", "CollabClient", "CollabCore", "CollabStore", "CollabWire", "CollabTLS",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/CollabTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CollabServerTests",
            dependencies: [
                "CollabServer", "CollabTestSupport",
                "CollabClient", "CollabWire", "CollabCore", "CollabSeed", "CollabSeedExport", "CollabStore", "CollabPush",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ],
            swiftSettings: swiftSettings
        ),
        // Over real sockets with more than the server: the binary as a process, PostgreSQL clusters,
        // nginx in front, TLS, APNs over HTTP/2 and FCM receivers, the load tool, the client library's
        // flows end to end.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "CollabTestSupport", "CollabServer", "CollabClient", "CollabWire", "CollabCore", "CollabStore", "CollabLoad",
                "APNsSimulator", "CollabTLS", "CollabPush",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The README's Swift samples, extracted by scripts/readme-samples, run against a real server.
        .testTarget(
            name: "ReadmeSampleTests",
            dependencies: [
                "CollabClient",
                "CollabServer",
                "CollabStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
