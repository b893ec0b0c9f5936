import Foundation
import Trawl
import TrawlCore
import TrawlTesting

// The measurement Benchmarks/RESULTS.md reports.
try await BrowserBenchmark.run(Array(CommandLine.arguments.dropFirst()))
