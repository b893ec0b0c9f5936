import ArgumentParser
import BenchmarkSupport
import CBenchLibXML2
import Foundation
import Synchronization
import TrawlHTML
import TrawlTesting

#if canImport(Glibc)
import Glibc
#endif

/// `trawl-bench batch`: the real `trawl batch` process over a loopback server that serves the
/// generic corpus replicated to `pages` URLs, against libxml2's SAX limit for the same bytes on
/// every core, and (with `--scrapy PYTHON`) against Scrapy fetching the same list.
///
/// `trawl-bench batch-memory`: peak RSS of `trawl batch` for 10k and 100k URLs.
enum BatchBenchmark {
    /// `trawl-bench batch`'s options.
    struct Options: ParsableArguments {
        @Option(help: "URLs in the list, over the generic corpus.")
        var pages = 2000

        @Option(help: "trawl batch's --concurrency and --per-host (and Scrapy's).")
        var concurrency = 32

        @Option(help: "Paired rounds (libxml2's limit, then trawl batch).")
        var rounds = 5

        @Option(
            name: .customLong("scrapy"),
            help: ArgumentHelp("A Python with Scrapy, to run it on the same list (Benchmarks/batch.sh makes one).", valueName: "python"))
        var scrapyPython: String?

        /// `nginx` (a real server, as users meet: the default) or `loopback` (the in-process one).
        @Option(help: "The server: nginx (a real one, as users meet) or loopback (the in-process one).")
        var server = "nginx"

        func validate() throws { try BatchBenchmark.validate(server: server) }
    }

    /// `trawl-bench batch-memory`'s options.
    struct MemoryOptions: ParsableArguments {
        @Option(help: ArgumentHelp("List lengths, one trawl batch each.", valueName: "n,n,…"))
        var counts = CommaList([10_000, 100_000])

        @Option(help: "trawl batch's --concurrency and --per-host.")
        var concurrency = 32
    }

    /// `trawl-bench serve`'s options: the in-process server unless told `--server nginx`.
    struct ServeOptions: ParsableArguments {
        @Option(help: "URLs in the list.")
        var pages = 2000

        @Option(help: "The server: loopback (the in-process one) or nginx (so the profiled machine runs no Swift but trawl's).")
        var server = "loopback"

        func validate() throws { try BatchBenchmark.validate(server: server) }
    }

    static func validate(server: String) throws {
        guard ["nginx", "loopback"].contains(server) else { throw ValidationError("--server is nginx or loopback, not '\(server)'") }
    }

    /// The release `trawl` of the package at the repository's top (`swift build -c release
    /// --product trawl` there, as Benchmarks/lib.sh does): the benchmarks' package does not build it.
    static var trawlBinary: String {
        Corpus.repositoryRoot.appendingPathComponent(".build/release/trawl").path
    }

    /// Runs a command to its end: exit status, wall seconds, and the child's peak RSS in bytes.
    static func spawn(_ arguments: [String], quiet: Bool = true) throws -> (status: Int32, seconds: Double, peakRSS: Int, cpu: Double) {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        guard FileManager.default.isExecutableFile(atPath: arguments[0]) else {
            let hint = arguments[0] == trawlBinary ? " (swift build -c release --product trawl in the repository's top folder builds it)" : ""
            throw BenchmarkError("\(arguments[0]) is not an executable file\(hint)")
        }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let started = ContinuousClock.now
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(.init(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = seconds(ContinuousClock.now - started)
        return ((status >> 8) & 0xff, elapsed, usage.ru_maxrss * 1024, cpuSeconds(usage))
    }

    /// User + system CPU seconds in an `rusage` (a waited child's, or this process's).
    static func cpuSeconds(_ usage: rusage) -> Double {
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// A server over the corpus: `/p/N/NAME` serves page N modulo the corpus size.
    static func corpusServer() throws -> (LoopbackServer, [Data], [String]) {
        let files = try Corpus.genericPages()
        let pages = try files.map { try Data(contentsOf: $0) }
        let names = files.map(\.lastPathComponent)
        // Persistent connections, as a real web server keeps them (Scrapy and trawl both reuse them).
        let server = try LoopbackServer(keepsAlive: true) { request in
            let parts = request.path.split(separator: "/")
            guard parts.count == 3, parts[0] == "p", let n = Int(parts[1]) else { return .status(404) }
            return .ok(headers: [("Content-Type", "text/html")], body: pages[n % pages.count])
        }
        return (server, pages, names)
    }

    /// `count` URLs over the corpus server, page N of the corpus at `/p/N/NAME`.
    static func corpusURLs(_ server: LoopbackServer, names: [String], count: Int) -> [String] {
        corpusURLs(port: server.port, names: names, count: count)
    }

    static func corpusURLs(port: Int, names: [String], count: Int) -> [String] {
        (0..<count).map { "http://127.0.0.1:\(port)/p/\($0)/\(names[$0 % names.count])" }
    }

    /// libxml2's empty-SAX parse of `pages`, split over every core: pages per second.
    static func saxLimit(_ pages: [Data], cores: Int) -> Double {
        let next = Atomic<Int>(0)
        let clock = ContinuousClock()
        let started = clock.now
        DispatchQueue.concurrentPerform(iterations: cores) { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < pages.count else { return }
                emptySAXParse(pages[index])
            }
        }
        return Double(pages.count) / seconds(clock.now - started)
    }

    static func run(_ options: Options) throws {
        let port: Int
        let corpus: [Data]
        let names: [String]
        let stopServer: () -> Void
        if options.server == "loopback" {
            let (server, pages, pageNames) = try corpusServer()
            (port, corpus, names, stopServer) = (server.port, pages, pageNames, { server.shutdown() })
        } else {
            let files = try Corpus.genericPages()
            let nginx = try NginxServer(pages: files)
            (port, corpus, names, stopServer) = (nginx.port, try files.map { try Data(contentsOf: $0) }, files.map(\.lastPathComponent), { nginx.stop() })
        }
        defer { stopServer() }
        print(
            "server: \(options.server == "loopback" ? "the in-process loopback server" : "nginx \(NginxServer.version), keep-alive, sendfile") on 127.0.0.1:\(port)"
        )
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("urls.txt")
        let urls = corpusURLs(port: port, names: names, count: options.pages)
        try Data((urls.joined(separator: "\n") + "\n").utf8).write(to: list)
        let pages = (0..<options.pages).map { corpus[$0 % corpus.count] }
        let bytes = pages.reduce(0) { $0 + $1.count }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print(
            "list: \(options.pages) URLs over the generic corpus (\(corpus.count) pages), \(String(format: "%.0f", Double(bytes) / 1e6)) MB, concurrency \(options.concurrency), \(cores) cores"
        )

        LibXML2Warmup.run(corpus[0])
        // This machine's speed drifts from minute to minute (by a third, seen here), so each
        // trawl run is paired with a limit measured just before it, and the paired ratios'
        // median is the result.
        struct Round { var limit: Double; var rate: Double; var cpu: Double; var rss: Int }
        var rounds: [Round] = []
        for round in 0..<options.rounds {
            let limit = (0..<2).map { _ in saxLimit(pages, cores: cores) }.max() ?? 0
            let out = folder.appendingPathComponent("out-\(round).jsonl")
            let result = try spawn([
                trawlBinary, "batch", list.path, "--out", out.path, "--store", folder.appendingPathComponent("store-\(round).sqlite").path,
                "--concurrency", "\(options.concurrency)", "--per-host", "\(options.concurrency)", "--quiet",
                // The server stands in for every host: a page's follow-up requests (its oEmbed
                // link when it shows no media) get a quick 404 here instead of waiting on DNS
                // with no internet. Scrapy makes no follow-up requests.
                "--connect-to", "::127.0.0.1:\(port)", "--plain-http",
                // Like for like with Scrapy and libxml2's limit: no JavaScript is run.
                "--browser", "never",
            ])
            let lines = (try? String(contentsOf: out, encoding: .utf8))?.split(separator: "\n").count ?? 0
            guard lines == options.pages else {
                print("trawl batch wrote \(lines) of \(options.pages) lines (exit \(result.status)); not counted")
                continue
            }
            let rate = Double(options.pages) / result.seconds
            rounds.append(Round(limit: limit, rate: rate, cpu: result.cpu, rss: result.peakRSS))
            print(
                String(
                    format:
                        "  round %d: libxml2 limit %.0f pages/s (%.0f MB/s), trawl batch %.0f pages/s (%.2f s, CPU %.2f ms per page, peak RSS %.0f MiB): %.2f",
                    round + 1, limit, limit * Double(bytes) / Double(pages.count) / 1e6, rate, result.seconds,
                    result.cpu * 1000 / Double(options.pages), Double(result.peakRSS) / 1048576, rate / limit))
        }
        guard !rounds.isEmpty else { return }
        let ratios = rounds.map { $0.rate / $0.limit }.sorted()
        let median = rounds.sorted { $0.rate / $0.limit < $1.rate / $1.limit }[rounds.count / 2]
        let trawlRate = rounds.map(\.rate).max() ?? 0
        print(
            String(
                format: "libxml2 empty-SAX parse of the same bytes on %d cores: %.0f pages/s in the median round (the limit is %.2f ms of CPU per page)",
                cores, median.limit, Double(cores) * 1000 / median.limit))
        print(
            String(
                format: "trawl batch: %.0f pages/s in the median round, best %.0f; CPU %.2f ms per page; peak RSS %.0f MiB",
                median.rate, trawlRate, median.cpu * 1000 / Double(options.pages), Double(rounds.map(\.rss).max() ?? 0) / 1048576))
        print(
            String(
                format: "ratio to the libxml2 limit: %.2f, the median of %d paired rounds (%.2f–%.2f) (target >= 0.8)",
                median.rate / median.limit, rounds.count, ratios.first ?? 0, ratios.last ?? 0))

        guard let python = options.scrapyPython else {
            print("scrapy: skipped (Benchmarks/batch.sh installs it and passes --scrapy)")
            return
        }
        let spider = Corpus.repositoryRoot.appendingPathComponent("Benchmarks/scrapy/gif_spider.py").path
        var scrapyBest = Double.infinity
        for round in 0..<2 {
            let out = folder.appendingPathComponent("scrapy-\(round).jsonl")
            let result = try spawn([
                python, "-m", "scrapy", "runspider", spider, "-a", "urls=\(list.path)", "-o", out.path,
                "-s", "CONCURRENT_REQUESTS=\(options.concurrency)", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=\(options.concurrency)",
                "-s", "LOG_LEVEL=ERROR", "-s", "ROBOTSTXT_OBEY=False", "-s", "TELNETCONSOLE_ENABLED=False",
            ])
            let lines = (try? String(contentsOf: out, encoding: .utf8))?.split(separator: "\n").count ?? 0
            guard result.status == 0, lines == options.pages else {
                print("scrapy wrote \(lines) of \(options.pages) lines (exit \(result.status)); not counted")
                continue
            }
            scrapyBest = min(scrapyBest, result.seconds)
        }
        guard scrapyBest.isFinite else { return }
        let scrapyRate = Double(options.pages) / scrapyBest
        print(String(format: "scrapy: %.0f pages/s (best of 2: %.2f s)", scrapyRate, scrapyBest))
        print(String(format: "trawl / scrapy: %.1fx (goal >= 8x)", trawlRate / scrapyRate))
    }

    /// `trawl-bench serve LIST`: the batch benchmark's server alone, its URL list written to
    /// `LIST`, until stdin closes; for profiling `trawl batch` by itself.
    /// `--server nginx` serves the corpus with nginx instead of the in-process server, so the
    /// profiled machine runs no Swift but trawl's.
    static func serve(_ options: ServeOptions, list: String) throws {
        let port: Int
        let names: [String]
        let stop: () -> Void
        if options.server == "nginx" {
            let files = try Corpus.genericPages()
            let nginx = try NginxServer(pages: files)
            (port, names, stop) = (nginx.port, files.map(\.lastPathComponent), { nginx.stop() })
        } else {
            let (server, _, pageNames) = try corpusServer()
            (port, names, stop) = (server.port, pageNames, { server.shutdown() })
        }
        defer { stop() }
        let urls = corpusURLs(port: port, names: names, count: options.pages)
        try Data((urls.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: list))
        print("serving \(options.pages) URLs listed in \(list); close stdin to stop")
        while readLine() != nil {}
    }

    /// Peak RSS of `trawl batch` over lists of each size, against a server of one small page.
    static func memory(_ options: MemoryOptions) throws {
        let page = Data(
            "<html><head><title>t</title><meta property=\"og:image\" content=\"https://media.test/a.gif\"></head><body><p>hello</p></body></html>".utf8)
        let server = try LoopbackServer { _ in .ok(headers: [("Content-Type", "text/html")], body: page) }
        defer { server.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-batchmem-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var peaks: [Int] = []
        for count in options.counts.values {
            let list = folder.appendingPathComponent("urls-\(count).txt")
            let handle = FileManager.default.createFile(atPath: list.path, contents: nil) ? try FileHandle(forWritingTo: list) : nil
            var chunk = ""
            for n in 0..<count {
                chunk += "http://127.0.0.1:\(server.port)/page/\(n)\n"
                if chunk.utf8.count > 1 << 16 { try handle?.write(contentsOf: Data(chunk.utf8)); chunk = "" }
            }
            try handle?.write(contentsOf: Data(chunk.utf8))
            try handle?.close()
            let result = try spawn([
                trawlBinary, "batch", list.path, "--out", folder.appendingPathComponent("out-\(count).jsonl").path,
                "--store", folder.appendingPathComponent("store-\(count).sqlite").path,
                "--concurrency", "\(options.concurrency)", "--per-host", "\(options.concurrency)", "--quiet",
                // The server stands in for every host: a page's follow-up requests (its oEmbed
                // link when it shows no media) get a quick 404 here instead of waiting on DNS
                // with no internet. Scrapy makes no follow-up requests.
                "--connect-to", "::127.0.0.1:\(server.port)", "--plain-http",
            ])
            peaks.append(result.peakRSS)
            print(
                String(
                    format: "%7d URLs: peak RSS %.1f MiB, %.1f s (%.0f URLs/s), exit %d", count, Double(result.peakRSS) / 1048576, result.seconds,
                    Double(count) / result.seconds, result.status))
        }
        if let low = peaks.min(), let high = peaks.max(), low > 0 {
            print(String(format: "largest / smallest: %.2f (target: within 10%%, all <= 64 MiB)", Double(high) / Double(low)))
        }
    }
}
