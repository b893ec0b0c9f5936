import Foundation

/// Peak RSS of whole `trawl resolve` processes on the 30 MB page of markup: through `file:` and
/// over HTTP from nginx on loopback (where a server faster than the scanner could fill memory
/// with the body), beside a one-line page for the process's own size. Each run is a process of
/// its own under `/usr/bin/time`, the release `trawl` of the repository's top package.
enum ProcessMemoryBenchmark {
    static func run(rounds: Int, trawl: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            throw BenchmarkError("needs /usr/bin/time (apt-get install -y time)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-process-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let big = folder.appendingPathComponent("big.html")
        let size = try writeBigPage(.markup, to: big)
        let small = folder.appendingPathComponent("small.html")
        try Data(#"<html><body><img src="https://m.example/a.gif" width="300"></body></html>"#.utf8).write(to: small)
        let server = try NginxServer(pages: [big, small])
        defer { server.stop() }
        let inputs: [(name: String, url: String)] = [
            ("a one-line page through file:", small.absoluteString),
            ("the 30 MB page through file:", big.absoluteString),
            ("the 30 MB page over HTTP from nginx", "http://127.0.0.1:\(server.port)/p/0/big.html"),
        ]
        print("page: \(String(format: "%.1f", Double(size) / 1e6)) MB of markup, one GIF at its end; \(rounds) rounds, the inputs alternating")
        print("trawl: \(trawl) (trawl resolve --json URL, each a process of its own)")
        var peaks = Array(repeating: [Int](), count: inputs.count)
        for _ in 0..<rounds {
            for (index, input) in inputs.enumerated() { peaks[index].append(try peakRSS(of: trawl, resolving: input.url, in: folder)) }
        }
        for (index, input) in inputs.enumerated() {
            let sorted = peaks[index].sorted()
            let median = Double(sorted[sorted.count / 2]) * 1024
            let range = "\(String(format: "%.1f", Double(sorted.first!) * 1024 / 1e6))–\(String(format: "%.1f", Double(sorted.last!) * 1024 / 1e6))"
            print(
                "\(input.name) — peak RSS median \(String(format: "%.1f", median / 1e6)) MB (\(range) MB) = \(String(format: "%.2f", median / Double(size)))× the 30 MB page"
            )
        }
    }

    /// Peak RSS in KiB of one `trawl resolve --json URL`, which must find the page's GIF.
    private static func peakRSS(of trawl: String, resolving url: String, in folder: URL) throws -> Int {
        let report = folder.appendingPathComponent("time.txt")
        let output = folder.appendingPathComponent("out.jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", report.path, trawl, "resolve", "--json", url]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let printed = try String(contentsOf: output, encoding: .utf8)
        guard process.terminationStatus == 0, printed.contains(".gif") else {
            throw BenchmarkError("trawl resolve \(url) exited \(process.terminationStatus) without the page's GIF: \(printed.prefix(300))")
        }
        let text = try String(contentsOf: report, encoding: .utf8)
        guard let kib = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw BenchmarkError("no peak RSS in /usr/bin/time's report: \(text)")
        }
        return kib
    }
}
