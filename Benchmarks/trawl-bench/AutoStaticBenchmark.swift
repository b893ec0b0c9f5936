import ArgumentParser
import Foundation
import TrawlTesting

/// `trawl-bench auto-static`: the release `trawl batch` over the corpus pages served by nginx,
/// `--browser never` and `--browser auto` back to back in alternating order, each a process of
/// its own: pages/s and CPU per page (the child's user + system time), and auto's share of
/// never's. Every corpus page is static (none goes to the browser), so what auto costs more is
/// the check that decides it (``StaticPageEvidence``); the goal is within 10%.
///
/// `trawl-bench browser` runs the same comparison on its mixed list's static part.
enum AutoStaticBenchmark {
    struct Options: ParsableArguments {
        @Option(name: [.customLong("pages"), .customLong("static")], help: "Corpus pages in the list.")
        var pages = 2000

        @Option(help: "Rounds, each --browser never and auto (who goes first alternates).")
        var rounds = 5
    }

    /// One `trawl batch` run over the static list.
    struct Run {
        var rate: Double
        var cpuPerPage: Double
    }

    static func run(_ options: Options) throws {
        let files = try Corpus.genericPages()
        let nginx = try NginxServer(pages: files)
        defer { nginx.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-auto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("static.txt").path
        let urls = BatchBenchmark.corpusURLs(port: nginx.port, names: files.map(\.lastPathComponent), count: options.pages)
        try Data((urls.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: list))
        print(
            "\(options.pages) corpus pages served by nginx \(NginxServer.version) on 127.0.0.1:\(nginx.port); "
                + "trawl batch --concurrency 32 --per-host 32, --browser never vs auto, alternating")
        var runs = 0
        var never: [Run] = []
        var auto: [Run] = []
        for round in 0..<options.rounds {
            var line = "round \(round + 1):"
            for mode in round % 2 == 0 ? ["never", "auto"] : ["auto", "never"] {
                runs += 1
                let run = try batch(list, mode: mode, port: nginx.port, prefix: folder.appendingPathComponent("\(runs)").path)
                if mode == "never" { never.append(run) } else { auto.append(run) }
                line += String(format: " %@ %.0f pages/s, CPU %.2f ms per page;", mode, run.rate, run.cpuPerPage)
            }
            print(line)
        }
        print(summary(never: never, auto: auto))
    }

    /// `trawl batch LIST --browser MODE` against the server on `port`, its files named from `prefix`.
    static func batch(_ list: String, mode: String, port: Int, prefix: String) throws -> Run {
        let out = prefix + "-\(mode).jsonl"
        let result = try BatchBenchmark.spawn(
            [
                BatchBenchmark.trawlBinary, "batch", list, "--out", out, "--store", prefix + "-\(mode).sqlite",
                "--concurrency", "32", "--per-host", "32", "--quiet", "--connect-to", "::127.0.0.1:\(port)", "--browser", mode,
            ])
        let lines = (try? String(contentsOfFile: out, encoding: .utf8))?.split(separator: "\n").count ?? 0
        guard lines > 0 else { throw BenchmarkError("trawl batch --browser \(mode) wrote no result lines (exit status \(result.status))") }
        return Run(rate: Double(lines) / result.seconds, cpuPerPage: result.cpu * 1000 / Double(lines))
    }

    /// The closing line: medians both ways and auto's ratio to never.
    static func summary(never: [Run], auto: [Run]) -> String {
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        let (neverRate, autoRate) = (median(never.map(\.rate)), median(auto.map(\.rate)))
        let (neverCPU, autoCPU) = (median(never.map(\.cpuPerPage)), median(auto.map(\.cpuPerPage)))
        return String(
            format: "static pages, medians: --browser never %.0f pages/s, CPU %.2f ms per page; --browser auto %.0f pages/s, CPU %.2f ms per page: "
                + "auto / never %.2f in pages/s, %.2f in CPU per page (goal: within 10%%)",
            neverRate, neverCPU, autoRate, autoCPU, autoRate / max(neverRate, 1e-9), autoCPU / max(neverCPU, 1e-9))
    }
}
