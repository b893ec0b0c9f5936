import ArgumentParser
import BenchmarkSupport
import Foundation
import TrawlTesting

/// `trawl-bench browser`: the release `trawl` against Playwright for Python driving the same
/// Chromium binary, on JavaScript pages served by nginx on loopback (``JavaScriptSite``), and
/// `trawl batch --browser auto` against Crawlee for Python's adaptive crawler on a mixed list of
/// corpus pages and JavaScript pages. Every run is a real process whose whole process tree is
/// watched (``WatchedRun``); trawl and its peer alternate within each round.
///
/// Trawl's side is the user's path: `trawl batch --browser always` for lists (concurrency N is
/// `--concurrency N --per-host N`, the browser's page cap stays 8), `trawl resolve URL` (browser
/// `auto`, the default) for the first page. `Benchmarks/browser.sh` installs everything and runs it.
enum BrowserComparison {
    struct Options: ParsableArguments {
        @Option(help: "A Python with playwright and crawlee (Benchmarks/browser.sh makes one).")
        var python: String

        @Option(help: "Rounds, trawl and its peer alternating.")
        var rounds = 3

        @Option(name: .customLong("pages"), help: ArgumentHelp("Pages per run at concurrency 1, 4 and 8.", valueName: "c1,c4,c8"))
        var pageCounts = CommaList([20, 48, 80])

        @Option(name: .customLong("static"), help: "Corpus pages in the mixed list.")
        var staticPages = 2000

        @Option(name: .customLong("js"), help: "JavaScript pages in the mixed list.")
        var javaScriptPages = 50

        @Option(help: "Rounds of Crawlee on the mixed list.")
        var crawleeRounds = 1

        @Flag(inversion: .prefixedNo, help: "The mixed list: trawl batch --browser auto vs Crawlee's adaptive crawler.")
        var mixed = true

        @Option(name: .customLong("concurrency"), help: ArgumentHelp("Concurrencies measured (of 1, 4, 8).", valueName: "n,n,…"))
        var concurrencyList = CommaList([1, 4, 8])

        @Option(
            name: .customLong("kinds"), help: ArgumentHelp("JavaScript page kinds: js (the script fetches at once), jt (after a timer).", valueName: "kind,…"))
        var kindList = CommaList(JavaScriptSite.Kind.allCases)

        @Flag(name: .customLong("first"), inversion: .prefixedNo, help: "Process start to the first page's media.")
        var firstPage = true

        /// Pages per run at concurrency 1, 4 and 8.
        var pages: [Int: Int] {
            var pages = [1: 20, 4: 48, 8: 80]
            for (concurrency, count) in zip([1, 4, 8], pageCounts.values) { pages[concurrency] = count }
            return pages
        }

        /// Concurrencies measured (of 1, 4, 8).
        var concurrencies: [Int] { concurrencyList.values }
        var kinds: [JavaScriptSite.Kind] { kindList.values }
    }

    static let chromium = "/usr/lib/chromium/chromium-headless-shell"

    /// One tool's runs at one concurrency.
    struct Figures {
        var whole: [Double] = []
        var steady: [Double] = []
        var pss: [Int] = []
        var right = 0
        var total = 0

        mutating func add(_ run: WatchedRun, right: Int, of count: Int) {
            whole.append(Double(count) / run.seconds)
            if let rate = run.steadyRate { steady.append(rate) }
            pss.append(run.peakPSS)
            self.right += right
            total += count
        }
    }

    static func run(_ options: Options) throws {
        let python = options.python
        let root = Corpus.repositoryRoot.appendingPathComponent("Benchmarks")
        let playwrightScript = root.appendingPathComponent("playwright/render.py").path
        let crawleeScript = root.appendingPathComponent("crawlee/adaptive.py").path
        let corpusFiles = try Corpus.genericPages()
        let nginx = try NginxServer(
            pages: corpusFiles, files: [JavaScriptSite.fileName: JavaScriptSite.page, JavaScriptSite.timerFileName: JavaScriptSite.timerPage],
            locations: JavaScriptSite.locations)
        defer { nginx.stop() }
        let port = nginx.port
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("stderr.log").path
        var runCount = 0
        func file(_ name: String) -> String {
            runCount += 1
            return folder.appendingPathComponent("\(runCount)-\(name)").path
        }

        say(
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, load average \(loadAverage()) at the start (other builds were running: compare trawl and its peer within a round, not across runs)"
        )
        say("chromium: \(commandOutput([chromium, "--version"])) (\(chromium)), driven by both; nginx \(NginxServer.version) on 127.0.0.1:\(port)")
        say(
            "peers: \(commandOutput([python, "-c", "import importlib.metadata as m; print('Playwright', m.version('playwright'), '/ Crawlee', m.version('crawlee'), '(PyPI)')"]))"
        )
        say("pages: /js/N, a page whose script fetches /api/N.json and builds an <img> and a <video> from it; right = both media found")
        say("trawl: the release trawl (batch --browser always --concurrency N --per-host N; resolve URL for the first page)")
        say("playwright: Benchmarks/playwright/render.py (context per page, images/fonts/media/CSS blocked, XHR JSON + DOM after networkidle)")
        say("")

        // 1. Process start → the first page's media.
        var firstTrawl: [Double] = []
        var firstPlaywright: [Double] = []
        let firstList = file("first.txt")
        try write([JavaScriptSite.url(port: port, 0)], to: firstList)
        for round in 0..<(options.firstPage ? options.rounds : 0) {
            let trawl = { () throws -> Double? in
                try WatchedRun.run(
                    [BatchBenchmark.trawlBinary, "resolve", JavaScriptSite.url(port: port, 0), "--json", "--connect-to", "::127.0.0.1:\(port)"],
                    mark: "/media/", stderrPath: log
                ).firstMark
            }
            let playwright = { () throws -> Double? in
                try WatchedRun.run(
                    [python, playwrightScript, firstList, "--executable", chromium, "--map", "127.0.0.1:\(port)", "--concurrency", "1"],
                    mark: "/media/", stderrPath: log
                ).firstMark
            }
            let (t, p) =
                try round % 2 == 0
                ? (trawl(), playwright())
                : {
                    let p = try playwright(); return (try trawl(), p)
                }()
            if let t { firstTrawl.append(t) }
            if let p { firstPlaywright.append(p) }
            say("round \(round + 1): start → first media: trawl resolve \(ms(t)), playwright \(ms(p))")
        }
        say("start → first page's media: trawl \(summary(firstTrawl, ms)), playwright \(summary(firstPlaywright, ms)) (goal for trawl <= 500 ms)")
        say("")

        // 2. Pages/s at concurrency 1, 4, 8, and peak PSS of each tool's process tree.
        for kind in options.kinds {
            say(
                "page kind /\(kind.rawValue)/N (\(kind == .plain ? "fetch at once" : "fetch after a 150 ms timer, another 300 ms timer pending once the media are in"))"
            )
            try pagesPerSecond(options, kind: kind, port: port, python: python, playwrightScript: playwrightScript, file: file, log: log)
            say("")
        }
        guard options.mixed else { return }
        try mixed(options, port: port, corpusNames: corpusFiles.map(\.lastPathComponent), python: python, crawleeScript: crawleeScript, file: file, log: log)
    }

    /// Pages/s at each concurrency, trawl against Playwright, on one kind of page.
    private static func pagesPerSecond(
        _ options: Options, kind: JavaScriptSite.Kind, port: Int, python: String, playwrightScript: String,
        file: @escaping (String) -> String, log: String
    ) throws {
        var trawlFigures: [Int: Figures] = [:]
        var playwrightFigures: [Int: Figures] = [:]
        var next = 1000
        for round in 0..<options.rounds {
            for concurrency in options.concurrencies {
                let count = options.pages[concurrency] ?? 40
                let numbers = Array(next..<(next + count))
                next += count
                let list = file("list-c\(concurrency).txt")
                try write(numbers.map { JavaScriptSite.url(port: port, $0, kind: kind) }, to: list)
                let trawl = { () throws -> String in
                    let out = file("trawl-c\(concurrency).jsonl")
                    let run = try WatchedRun.run(
                        [
                            BatchBenchmark.trawlBinary, "batch", list, "--out", out, "--store", file("store.sqlite"),
                            "--concurrency", "\(concurrency)", "--per-host", "\(concurrency)", "--quiet",
                            "--connect-to", "::127.0.0.1:\(port)", "--browser", "always",
                        ],
                        linesFile: out, stderrPath: log)
                    let right = rightPages(trawlResults(out), port: port)
                    trawlFigures[concurrency, default: Figures()].add(run, right: right, of: count)
                    return describe("trawl", run, count: count, right: right)
                }
                let playwright = { () throws -> String in
                    let run = try WatchedRun.run(
                        [python, playwrightScript, list, "--executable", chromium, "--map", "127.0.0.1:\(port)", "--concurrency", "\(concurrency)"],
                        lineMarker: #"{"page": "#, stderrPath: log)
                    let right = rightPages(peerResults(run.stdout), port: port)
                    playwrightFigures[concurrency, default: Figures()].add(run, right: right, of: count)
                    return describe("playwright", run, count: count, right: right)
                }
                // Alternate who goes first, so neither always runs on the warmer (or busier) machine.
                let lines =
                    try (round + concurrency) % 2 == 0
                    ? [trawl(), playwright()]
                    : {
                        let p = try playwright(); return [try trawl(), p]
                    }()
                say("round \(round + 1), concurrency \(concurrency): " + lines.sorted().joined(separator: "; "))
            }
        }
        for concurrency in options.concurrencies {
            let t = trawlFigures[concurrency] ?? Figures()
            let p = playwrightFigures[concurrency] ?? Figures()
            say(
                "concurrency \(concurrency): trawl \(summary(t.whole, rate)) pages/s (steady \(summary(t.steady, rate))), right \(t.right)/\(t.total); "
                    + "playwright \(summary(p.whole, rate)) (steady \(summary(p.steady, rate))), right \(p.right)/\(p.total); "
                    + "trawl / playwright \(String(format: "%.2f", median(t.whole) / max(median(p.whole), 1e-9)))x whole runs, "
                    + "\(String(format: "%.2f", median(t.steady) / max(median(p.steady), 1e-9)))x steady")
        }
        let trawlPSS = trawlFigures[8]?.pss ?? []
        let playwrightPSS = playwrightFigures[8]?.pss ?? []
        say(
            "peak PSS of the process tree at concurrency 8: trawl \(summary(trawlPSS.map(Double.init), mib)), playwright \(summary(playwrightPSS.map(Double.init), mib)) "
                + "(goal: >= 2x playwright's pages/s at 8 with less memory)")
        say(
            "  whole = pages / wall time of the process, its start included; steady = result lines per second from the first to the last "
                + "(trawl's are read from its --out file, which it appends at least every 0.25 s)")
    }

    /// The mixed list: corpus pages with the JavaScript pages spread evenly among them.
    private static func mixed(
        _ options: Options, port: Int, corpusNames: [String], python: String, crawleeScript: String,
        file: (String) -> String, log: String
    ) throws {
        let staticURLs = BatchBenchmark.corpusURLs(port: port, names: corpusNames, count: options.staticPages)
        let step = max(1, options.staticPages / max(options.javaScriptPages, 1))
        var mixedURLs: [String] = []
        var javaScript = 0
        for (index, url) in staticURLs.enumerated() {
            if index % step == step / 2, javaScript < options.javaScriptPages {
                mixedURLs.append(JavaScriptSite.url(port: port, 5000 + javaScript))
                javaScript += 1
            }
            mixedURLs.append(url)
        }
        let mixedList = file("mixed.txt")
        let staticList = file("static.txt")
        try write(mixedURLs, to: mixedList)
        try write(staticURLs, to: staticList)
        say("mixed list: \(options.staticPages) corpus pages (nginx, /p/N/NAME) + \(javaScript) JavaScript pages spread among them, all on 127.0.0.1:\(port)")
        say(
            "trawl: batch --browser auto --concurrency 32 --per-host 32; crawlee: AdaptivePlaywrightCrawler.with_parsel_static_parser, concurrency 16 (Benchmarks/crawlee/adaptive.py)"
        )

        func trawlBatch(_ list: String, mode: String, count: Int) throws -> (run: WatchedRun, right: Int, results: [String: Set<String>]) {
            let out = file("mixed-\(mode).jsonl")
            let run = try WatchedRun.run(
                [
                    BatchBenchmark.trawlBinary, "batch", list, "--out", out, "--store", file("store.sqlite"),
                    "--concurrency", "32", "--per-host", "32", "--quiet", "--connect-to", "::127.0.0.1:\(port)", "--browser", mode,
                ],
                stderrPath: log)
            let results = trawlResults(out)
            return (run, rightPages(results, port: port), results)
        }
        var autoMixed: [Double] = []
        var autoMixedRight: [Int] = []
        var neverStatic: [AutoStaticBenchmark.Run] = []
        var autoStatic: [AutoStaticBenchmark.Run] = []
        var crawleeRates: [Double] = []
        var crawleeRight: [Int] = []
        for round in 0..<options.rounds {
            let mixedRun = try trawlBatch(mixedList, mode: "auto", count: mixedURLs.count)
            let rate = Double(mixedRun.results.count) / mixedRun.run.seconds
            autoMixed.append(rate)
            autoMixedRight.append(mixedRun.right)
            var line = String(
                format: "round %d: trawl auto mixed %.0f pages/s (%.2f s, %d lines, JS right %d/%d, peak PSS %@)",
                round + 1, rate, mixedRun.run.seconds, mixedRun.results.count, mixedRun.right, javaScript, mib(Double(mixedRun.run.peakPSS)))
            // The static part alone, both ways, back to back in alternating order.
            let modes = round % 2 == 0 ? ["never", "auto"] : ["auto", "never"]
            for mode in modes {
                let run = try AutoStaticBenchmark.batch(staticList, mode: mode, port: port, prefix: file("static"))
                if mode == "never" { neverStatic.append(run) } else { autoStatic.append(run) }
                line += String(format: "; static alone %@ %.0f pages/s (CPU %.2f ms per page)", mode, run.rate, run.cpuPerPage)
            }
            if round < options.crawleeRounds {
                let run = try WatchedRun.run(
                    [python, crawleeScript, mixedList, "--executable", chromium, "--map", "127.0.0.1:\(port)"],
                    environment: ["CRAWLEE_STORAGE_DIR": file("crawlee-storage")], stderrPath: log)
                let results = peerResults(run.stdout)
                let right = rightPages(results, port: port)
                let rate = Double(results.count) / run.seconds
                crawleeRates.append(rate)
                crawleeRight.append(right)
                line += String(
                    format: "; crawlee %.1f pages/s (%.1f s, %d pages answered, JS right %d/%d, peak PSS %@)",
                    rate, run.seconds, results.count, right, javaScript, mib(Double(run.peakPSS)))
            }
            say(line)
        }
        say(
            "trawl --browser auto, mixed list: \(summary(autoMixed, rate)) pages/s; JavaScript pages right: \(autoMixedRight.map { "\($0)/\(javaScript)" }.joined(separator: ", ")) (goal: every one, every run)"
        )
        if !crawleeRates.isEmpty {
            say(
                "crawlee adaptive, mixed list: \(summary(crawleeRates, rate)) pages/s; JavaScript pages right: \(crawleeRight.map { "\($0)/\(javaScript)" }.joined(separator: ", "))"
            )
            say(String(format: "trawl / crawlee: %.1fx (goal >= 20x)", median(autoMixed) / max(median(crawleeRates), 1e-9)))
        }
        say("static part alone: --browser never \(summary(neverStatic.map(\.rate), rate)), --browser auto \(summary(autoStatic.map(\.rate), rate)) pages/s")
        say(AutoStaticBenchmark.summary(never: neverStatic, auto: autoStatic))
    }

    // MARK: - Results

    /// `trawl batch --out` lines: input URL → media URLs.
    static func trawlResults(_ path: String) -> [String: Set<String>] {
        var results: [String: Set<String>] = [:]
        for object in jsonLines(path) {
            guard let input = object["input"] as? String else { continue }
            let media = (object["media"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
            results[input] = Set(media)
        }
        return results
    }

    /// The Python scripts' `{"page": URL, "media": [...]}` lines.
    static func peerResults(_ stdout: String) -> [String: Set<String>] {
        var results: [String: Set<String>] = [:]
        for line in stdout.split(separator: "\n") {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                let page = object["page"] as? String
            else { continue }
            results[page] = Set(object["media"] as? [String] ?? [])
        }
        return results
    }

    /// How many JavaScript pages among `results` have both their media.
    static func rightPages(_ results: [String: Set<String>], port: Int) -> Int {
        results.reduce(0) { count, result in
            guard let n = JavaScriptSite.number(result.key) else { return count }
            return count + (JavaScriptSite.expectedMedia(port: port, n).isSubset(of: result.value) ? 1 : 0)
        }
    }

    private static func jsonLines(_ path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    // MARK: - Formatting

    /// Prints `line` at once, also into a pipe or a file (a long run shows its rounds as they end).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func describe(_ tool: String, _ run: WatchedRun, count: Int, right: Int) -> String {
        String(
            format: "%@ %.2f pages/s (steady %@, %.2f s, right %d/%d, peak PSS %@%@)",
            tool, Double(count) / run.seconds, run.steadyRate.map { String(format: "%.2f", $0) } ?? "-", run.seconds, right, count,
            mib(Double(run.peakPSS)), run.status == 0 ? "" : ", exit \(run.status)")
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }

    /// `median (min–max, n runs)`.
    static func summary(_ values: [Double], _ format: (Double?) -> String) -> String {
        guard let low = values.min(), let high = values.max() else { return "-" }
        return "\(format(median(values))) (\(format(low))–\(format(high)), \(values.count) runs)"
    }

    static func ms(_ seconds: Double?) -> String { seconds.map { String(format: "%.0f ms", $0 * 1000) } ?? "-" }
    static func rate(_ value: Double?) -> String { value.map { String(format: value ?? 0 >= 100 ? "%.0f" : "%.2f", $0) } ?? "-" }
    static func mib(_ kib: Double?) -> String { kib.map { String(format: "%.0f MB", $0 / 1024) } ?? "-" }

    private static func write(_ lines: [String], to path: String) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    private static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// What a command prints. Spawned as given (Foundation's `Process` would run a virtualenv's
    /// `python` symlink by its target, outside the virtualenv).
    private static func commandOutput(_ arguments: [String]) -> String {
        ((try? WatchedRun.run(arguments))?.stdout ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension JavaScriptSite.Kind: ExpressibleByArgument {}
