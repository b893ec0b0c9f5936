import Foundation
import TrawlBrowser
import TrawlCore
import TrawlTesting

// `trawl-browser-bench hold`: starts a browser, prints `browser PID`, and waits to be killed
// (the kill -9 tests' browser owner). Without arguments: the measurement Benchmarks/RESULTS.md reports.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "hold" {
    let pool = BrowserPool()
    let server = try LoopbackServer { _ in .html("<p>held</p>") }
    _ = try await pool.render(FetchRequest(url: server.url("/")))
    FileHandle.standardOutput.write(Data("browser \(await pool.browserProcessID ?? 0)\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
} else {
    try await BrowserBenchmark.run(arguments)
}
