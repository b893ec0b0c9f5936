// swift-tools-version: 6.0
import PackageDescription

/// Trawl's benchmarks: `trawl-bench`, `trawl-browser-bench` and `trawl-index-bench`. A package
/// of its own, as Hummingbird and swift-nio keep theirs: building or testing Trawl never
/// compiles them, and they reach Trawl only through its library products. Build with
/// `swift build -c release --package-path Benchmarks --product trawl-bench` (the scripts here
/// do; without `--product`, SwiftPM builds every product of every dependency); see README.md.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "TrawlBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The identity is the folder's name otherwise, which differs between clones.
        .package(name: "Trawl", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // libxml2 called directly, for the empty-SAX limit (TrawlHTML's own module is not a product).
        .systemLibrary(
            name: "CBenchLibXML2", path: "CBenchLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),

        // What the tools share: their command line read the way `trawl` reads its own.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "BenchmarkSupport",
            swiftSettings: swiftSettings),

        .executableTarget(
            name: "trawl-bench",
            dependencies: [
                "BenchmarkSupport", "CBenchLibXML2",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Trawl", package: "Trawl"),
                .product(name: "TrawlCore", package: "Trawl"),
                .product(name: "TrawlBatch", package: "Trawl"),
                .product(name: "TrawlHTML", package: "Trawl"),
                .product(name: "TrawlParsers", package: "Trawl"),
                .product(name: "TrawlRecordings", package: "Trawl"),
                .product(name: "TrawlQueue", package: "Trawl"),
                .product(name: "TrawlQueueWorker", package: "Trawl"),
                .product(name: "TrawlTesting", package: "Trawl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "trawl-bench",
            swiftSettings: swiftSettings),

        // The browser library alone: startup, settle time, pages/s, PSS, CPU by process type.
        .executableTarget(
            name: "trawl-browser-bench",
            dependencies: [
                "BenchmarkSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Trawl", package: "Trawl"),
                .product(name: "TrawlCore", package: "Trawl"),
                .product(name: "TrawlTesting", package: "Trawl"),
            ],
            path: "trawl-browser-bench",
            swiftSettings: swiftSettings),

        // The local index at a million rows: insert rate, size, `!local` latency with facets.
        .executableTarget(
            name: "trawl-index-bench",
            dependencies: [
                "BenchmarkSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TrawlIndex", package: "Trawl"),
                .product(name: "TrawlCore", package: "Trawl"),
                .product(name: "TrawlTesting", package: "Trawl"),
            ],
            path: "trawl-index-bench",
            swiftSettings: swiftSettings),
    ]
)
