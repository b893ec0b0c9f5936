import Foundation

/// What `trawl-bench` takes, and how it refuses what it does not: `--help` prints the modes, an
/// unknown mode or an option the mode does not know ends the run with exit 2 before anything is
/// measured — a typo never starts a long benchmark with its defaults.
enum Usage {
    static let modes: [(name: String, arguments: String, summary: String)] = [
        ("all", "", "throughput, replay, accuracy and memory (the default)"),
        ("throughput", "", "extraction over the generic corpus against libxml2's own limit"),
        ("profile", "[ROUNDS]", "only the extraction, for perf record"),
        ("replay", "", "every case and corpus response, replayed"),
        ("accuracy", "", "precision and recall per site over the corpus and the dev set"),
        ("devset", "[--verbose]", "the dev set alone: overall, by trap class, by site"),
        ("memory", "", "peak RSS resolving a 30 MB page of markup"),
        ("memory-text", "", "peak RSS resolving a 30 MB page that is one text node"),
        ("batch", "[--pages N] [--concurrency N] [--rounds N] [--scrapy PYTHON] [--server nginx|loopback]", "trawl batch against nginx, beside Scrapy"),
        ("batch-memory", "[--counts 10000,100000]", "peak RSS of trawl batch by list length"),
        ("probe", "[--pages N] [--concurrency N] [--rounds N] [--media N]", "what --probe adds per page (nginx)"),
        ("queue-overhead", "[--urls N] [--workers 1,4,16] [--hosts N] [--compare] [--statements]", "the PostgreSQL queue's own cost"),
        ("queue", "[--pages N] [--concurrency N] [--rounds N]", "two queue workers vs SQLite, end to end"),
        ("browser", "--python PYTHON [--rounds N] [--pages 20,48,80] [--crawlee-rounds N] [--no-mixed] [--concurrency 1,4,8] [--kinds js,jt] [--no-first]", "against Playwright and Crawlee (jt: pages that fetch after a timer)"),
        ("auto-static", "[--pages N] [--rounds N]", "--browser never vs auto on static pages: CPU per page"),
        ("serve", "LIST [--pages N] [--server nginx]", "the batch server alone, for a profiler"),
        ("compare", "FILE...", "thinned vs full scan of pages that differ"),
    ]

    static var text: String {
        let width = modes.map(\.name.count).max() ?? 0
        let lines = modes.map { mode in
            "  \(mode.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(mode.arguments.isEmpty ? "" : mode.arguments + "  ")— \(mode.summary)"
        }
        return """
            usage: trawl-bench [MODE] [OPTIONS]   (swift run -c release trawl-bench …; see Benchmarks/README.md)

            modes:
            \(lines.joined(separator: "\n"))

            """
    }

    /// Checks the mode before anything runs: prints the usage for `--help`, refuses an unknown mode.
    static func check(mode: String) {
        if ["-h", "--help", "help"].contains(mode) {
            FileHandle.standardOutput.write(Data(text.utf8))
            exit(0)
        }
        guard modes.contains(where: { $0.name == mode }) else { refuse("unknown mode '\(mode)'") }
    }

    /// An option the running mode does not take.
    static func unknownOption(_ flag: String) -> Never {
        if ["-h", "--help"].contains(flag) {
            FileHandle.standardOutput.write(Data(text.utf8))
            exit(0)
        }
        refuse("unknown option '\(flag)' for \(CommandLine.arguments.dropFirst().first ?? "this mode")")
    }

    private static func refuse(_ reason: String) -> Never {
        FileHandle.standardError.write(Data("trawl-bench: \(reason)\n\n\(text)".utf8))
        exit(2)
    }
}
