// swift-tools-version: 6.0
import PackageDescription

/// libFuzzer targets for Trawl's parsers of outside input, built with
/// `-sanitize=fuzzer,address` (see `run.sh`, or `make fuzz` at the top). A package of its own
/// so the main package's builds and tests never see the sanitizer flags.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// One executable per target: `Targets/<name>/`, module `fuzz_<name>`.
func fuzzTarget(_ name: String, _ products: [String], extra: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: "fuzz-\(name)",
        dependencies: ["FuzzSupport"] + extra + products.map { .product(name: $0, package: "Trawl") },
        path: "Targets/\(name)",
        swiftSettings: swiftSettings)
}

let package = Package(
    name: "TrawlFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Trawl", path: ".."),
    ],
    targets: [
        .target(name: "FuzzSupport", path: "Support", swiftSettings: swiftSettings),
        // The chunked-equals-whole scan check the scanner and charset targets share.
        .target(
            name: "ScanCheck",
            dependencies: ["FuzzSupport", .product(name: "TrawlCore", package: "Trawl"), .product(name: "TrawlHTML", package: "Trawl")],
            path: "ScanCheck", swiftSettings: swiftSettings),
        fuzzTarget("query", ["TrawlCore"]),
        fuzzTarget("url", ["TrawlCore", "TrawlRecordings"]),
        fuzzTarget("html-scanner", ["TrawlCore", "TrawlHTML"], extra: ["ScanCheck"]),
        fuzzTarget("script-json", ["TrawlCore", "TrawlHTML"]),
        fuzzTarget("har", ["TrawlCore", "TrawlRecordings"]),
        fuzzTarget("charset", ["TrawlCore", "TrawlHTML"], extra: ["ScanCheck"]),
        fuzzTarget("probe", ["TrawlProbe"]),
        fuzzTarget("probe-readers", ["TrawlProbe"]),
    ]
)
