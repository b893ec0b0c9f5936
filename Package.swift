// swift-tools-version: 6.0
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode comes from the tools version;
/// `ExistentialAny` makes every existential spelled `any P`, as the packages we model on do.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Trawl",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Trawl", targets: ["Trawl"]),
        .library(name: "TrawlCore", targets: ["TrawlCore"]),
        .library(name: "TrawlRecordings", targets: ["TrawlRecordings"]),
        // For the fuzz targets in Fuzz/, a package of their own that depends on this one.
        .library(name: "TrawlHTML", targets: ["TrawlHTML"]),
        .library(name: "TrawlProbe", targets: ["TrawlProbe"]),
        .library(name: "TrawlStore", targets: ["TrawlStore"]),
        .library(name: "TrawlBatch", targets: ["TrawlBatch"]),
        .library(name: "TrawlQueue", targets: ["TrawlQueue"]),
        .library(name: "TrawlQueueWorker", targets: ["TrawlQueueWorker"]),
        .library(name: "TrawlIndex", targets: ["TrawlIndex"]),
        .library(name: "TrawlServer", targets: ["TrawlServer"]),
        // For the benchmarks in Benchmarks/, a package of their own that depends on this one.
        // The throughput benchmark times the scan and the generic parsers alone, over pages in
        // memory: no public entry point of Trawl runs the parsers without a fetch, and going
        // through one would change what is measured. TrawlEngines stays internal (nothing there
        // is timed on its own).
        .library(name: "TrawlParsers", targets: ["TrawlParsers"]),
        // Test support (the loopback server, the throwaway PostgreSQL cluster, corpus and dev-set
        // readers), as NIO ships NIOTestUtils and Hummingbird HummingbirdTesting: the benchmarks
        // serve and read with it.
        .library(name: "TrawlTesting", targets: ["TrawlTesting"]),
        .executable(name: "trawl", targets: ["trawl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `make docs`: the DocC catalog in Sources/Trawl/Trawl.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // HTTP request and response parts as swift-http-types values, for the server's channel handlers.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // Vocabulary: pure Swift, no C.
        .target(name: "TrawlCore", swiftSettings: swiftSettings),

        // C at the edges: system libraries with typed shims for variadic calls.
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CMalloc"),
        // posix_spawn with descriptors 3 and 4 mapped, pipe2 (_GNU_SOURCE): for the browser.
        .target(name: "CSpawn", cSettings: [.define("_GNU_SOURCE")]),

        .target(
            name: "TrawlFetch",
            dependencies: ["TrawlCore", "CCurl", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        .target(
            name: "TrawlHTML",
            dependencies: ["TrawlCore", "CLibXML2"],
            swiftSettings: swiftSettings),
        // What a media file's first bytes say: format, size, frames, running time (no C, no IO).
        .target(name: "TrawlProbe", swiftSettings: swiftSettings),
        // Payloads in, result sets out: site parsers, generic parsers, the fallback, the ranking.
        .target(
            name: "TrawlParsers",
            // TrawlProbe: its readers' rules the parsers share (an ISO 8601 duration).
            dependencies: ["TrawlCore", "TrawlProbe"],
            path: "Parsers",
            swiftSettings: swiftSettings),
        // The engines that answer a request: a page's resolution (site source, fetch, render
        // decision, oEmbed, fallback) and the search APIs, over the environment's transports.
        .target(
            name: "TrawlEngines",
            dependencies: ["TrawlCore", "TrawlParsers"],
            swiftSettings: swiftSettings),
        // HAR 1.2 recording and replay, case files and their verdicts.
        .target(
            name: "TrawlRecordings",
            dependencies: ["TrawlCore"],
            swiftSettings: swiftSettings),
        .target(
            name: "Trawl",
            dependencies: [
                "TrawlCore", "TrawlFetch", "TrawlHTML", "TrawlParsers", "TrawlEngines", "TrawlRecordings", "TrawlBrowser",
                "TrawlIndex", "TrawlProbe",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // The smoke runner (live or replayed cases, graded) and its JUnit/JSON/HTML reports.
        .target(
            name: "TrawlSmoke",
            dependencies: ["Trawl", "TrawlCore", "TrawlFetch", "TrawlEngines", "TrawlRecordings"],
            swiftSettings: swiftSettings),
        // Durable batch jobs on SQLite (WAL): coalesced URLs, states, attempts, results.
        .target(
            name: "TrawlStore",
            dependencies: ["TrawlCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings),
        // The local index: FTS5 over everything extracted, fed through a durable update queue.
        .target(
            name: "TrawlIndex",
            dependencies: [
                "TrawlCore", .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for binding a group's rows in place (InPlaceStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings),
        // Batch extraction: the scheduler, politeness, retries, the HTTP cache, progress.
        .target(
            name: "TrawlBatch",
            dependencies: [
                "Trawl", "TrawlCore", "TrawlFetch", "TrawlStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // The shared PostgreSQL queue, a store beside the SQLite one: migrations, leased claims,
        // fleet-wide politeness, results.
        .target(
            name: "TrawlQueue",
            dependencies: [
                "TrawlCore", "TrawlStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // Batch across machines, beside the batch runner: `trawl worker` and `trawl batch --queue`
        // over the PostgreSQL queue.
        .target(
            name: "TrawlQueueWorker",
            dependencies: [
                "Trawl", "TrawlBatch", "TrawlCore", "TrawlStore", "TrawlQueue",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // Headless Chromium over the DevTools pipe: pages whose media appear only after scripts run.
        .target(
            name: "TrawlBrowser",
            dependencies: ["TrawlCore", "TrawlFetch", "CSpawn"],
            swiftSettings: swiftSettings),
        // `trawl serve`: the HTTP API, the web page, metrics and request limits (Hummingbird 2).
        .target(
            name: "TrawlServer",
            dependencies: [
                "Trawl", "TrawlCore", "TrawlFetch", "TrawlBatch", "TrawlStore", "TrawlRecordings", "TrawlBrowser",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "trawl",
            dependencies: [
                "Trawl", "TrawlCore", "TrawlFetch", "TrawlRecordings", "TrawlBatch", "TrawlStore", "TrawlSmoke", "TrawlBrowser", "CMalloc",
                "TrawlQueue", "TrawlQueueWorker",
                "TrawlIndex",
                "TrawlServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),

        // Test support: the misbehaving loopback server and corpus helpers.
        .target(
            name: "TrawlTesting",
            dependencies: ["TrawlCore", "CZlib"],
            swiftSettings: swiftSettings),

        // The processes the kill -9 tests start and kill (a browser's owner, an index writer).
        .executableTarget(
            name: "trawl-test-process",
            dependencies: ["TrawlBrowser", "TrawlCore", "TrawlIndex", "TrawlTesting"],
            path: "Tests/Support/trawl-test-process",
            swiftSettings: swiftSettings),

        .testTarget(name: "TrawlCoreTests", dependencies: ["TrawlCore"], swiftSettings: swiftSettings),
        .testTarget(name: "TrawlProbeTests", dependencies: ["TrawlProbe", "TrawlTesting"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlFetchTests", dependencies: ["CCurl", "TrawlCore", "TrawlFetch", "TrawlTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlHTMLTests", dependencies: ["CLibXML2", "TrawlCore", "TrawlHTML", "TrawlTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlParsersTests", dependencies: ["TrawlCore", "TrawlParsers", "TrawlEngines", "TrawlHTML", "TrawlTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlEnginesTests", dependencies: ["TrawlCore", "TrawlEngines", "TrawlParsers", "TrawlHTML", "TrawlTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlRecordingsTests", dependencies: ["TrawlCore", "TrawlParsers", "TrawlEngines", "TrawlRecordings", "Trawl", "TrawlTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlTests", dependencies: ["Trawl", "TrawlCore", "TrawlFetch", "TrawlRecordings", "TrawlTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlSmokeTests", dependencies: ["TrawlSmoke", "Trawl", "TrawlCore", "TrawlRecordings", "TrawlTesting", "trawl"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlStoreTests", dependencies: ["TrawlStore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlIndexTests",
            dependencies: ["TrawlIndex", "TrawlCore", "Trawl", "TrawlTesting", "trawl", "trawl-test-process", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings),
        // The `trawl` command as users and scripts meet it: exit codes, output formats, errors.
        .testTarget(
            name: "TrawlCommandTests", dependencies: ["trawl", "TrawlTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlBatchTests",
            dependencies: ["Trawl", "TrawlCore", "TrawlFetch", "TrawlHTML", "TrawlParsers", "TrawlEngines", "TrawlBatch", "TrawlStore", "TrawlTesting", "trawl"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlQueueTests",
            dependencies: [
                "Trawl", "TrawlCore", "TrawlFetch", "TrawlBatch", "TrawlStore", "TrawlQueue", "TrawlQueueWorker", "TrawlTesting", "trawl",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlBrowserTests",
            dependencies: ["TrawlBrowser", "TrawlCore", "TrawlTesting", "trawl-test-process", "Trawl", "TrawlHTML", "TrawlParsers", "TrawlEngines",
                           "TrawlBatch", "TrawlStore", "TrawlSmoke"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TrawlServerTests",
            dependencies: [
                "TrawlServer", "Trawl", "TrawlCore", "TrawlFetch", "TrawlBatch", "TrawlBrowser", "TrawlTesting", "trawl",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
    ]
)
