import BenchmarkSupport

// The measurement Benchmarks/RESULTS.md reports.
await BenchmarkCommandLine.main(BrowserBench.self)
