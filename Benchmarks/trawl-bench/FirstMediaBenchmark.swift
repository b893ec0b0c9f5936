import Foundation

/// How soon `trawl resolve` prints what a 30 MB page's head names (an animated `og:image`),
/// against when the process ends: through `file:`, over HTTP from nginx on loopback, and from
/// nginx sending 8 MB/s (a page on a slow link). Each run is a process of its own, the release
/// `trawl` of the repository's top package unless `--trawl` names another.
enum FirstMediaBenchmark {
    static func run(rounds: Int, trawl: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-first-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let big = folder.appendingPathComponent("big.html")
        let size = try writeBigPage(.named, to: big)
        let server = try NginxServer(
            pages: [big], locations: #"location ~ ^/slow/(?<name>[^/]+)$ { limit_rate 8m; try_files /$name =404; }"#)
        defer { server.stop() }
        let inputs: [(name: String, url: String)] = [
            ("through file:", big.absoluteString),
            ("over HTTP from nginx", "http://127.0.0.1:\(server.port)/p/0/big.html"),
            ("over HTTP from nginx at 8 MB/s", "http://127.0.0.1:\(server.port)/slow/big.html"),
        ]
        print(
            "page: \(String(format: "%.1f", Double(size) / 1e6)) MB of markup, an animated og:image in its head, one GIF at its end; \(rounds) rounds, the inputs alternating"
        )
        print("trawl: \(trawl) (trawl resolve --json URL, each a process of its own)")
        var firsts = Array(repeating: [Double](), count: inputs.count)
        var ends = Array(repeating: [Double](), count: inputs.count)
        for _ in 0..<rounds {
            for (index, input) in inputs.enumerated() {
                let (first, end) = try times(of: trawl, resolving: input.url)
                firsts[index].append(first)
                ends[index].append(end)
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        for (index, input) in inputs.enumerated() {
            let first = median(firsts[index]), end = median(ends[index])
            print(
                "\(input.name) — named GIF printed at \(String(format: "%.0f", first)) ms (\(String(format: "%.0f", firsts[index].min()!))–\(String(format: "%.0f", firsts[index].max()!))), process ended at \(String(format: "%.0f", end)) ms: first media at \(String(format: "%.2f", first / end)) of the run (medians)"
            )
        }
    }

    /// Milliseconds from the start of one `trawl resolve --json URL` to the line naming the
    /// head's GIF, and to the process's end.
    private static func times(of trawl: String, resolving url: String) throws -> (first: Double, end: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: trawl)
        process.arguments = ["resolve", "--json", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }
        try process.run()
        var printed = Data()
        var first: Double?
        while true {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed.append(chunk)
            if first == nil, String(decoding: printed, as: UTF8.self).contains("named.gif") { first = elapsed() }
        }
        process.waitUntilExit()
        let end = elapsed()
        let text = String(decoding: printed, as: UTF8.self)
        guard process.terminationStatus == 0, let first else {
            throw BenchmarkError("trawl resolve \(url) exited \(process.terminationStatus) without the page's GIF: \(text.prefix(300))")
        }
        return (first, end)
    }
}
