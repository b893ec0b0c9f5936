import ArgumentParser
import BenchmarkSupport
import Foundation
import Synchronization
import Trawl
import TrawlCore
import TrawlTesting

/// `trawl-browser-bench`: figures for the browser loader on small JavaScript pages served on
/// loopback: time to the browser's first reply, time to a settled DOM, pages/s at concurrency
/// 1/4/8, the peak PSS of the browser's process tree, and the browser's CPU per page by process
/// type. Each `--variant` runs the same pages in the same run, after the default, with its
/// Chromium switches added.
/// Trawl's CPU includes the in-process loopback server that serves the pages (and, unless
/// `--no-pss`, the PSS sampler's reads of /proc).
struct BrowserBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trawl-browser-bench",
        abstract: "The browser loader alone (BrowserPool): launch, settle time, pages/s, peak PSS, CPU per page by Chromium process type.",
        discussion: "Run from the repository's top folder: swift run -c release --package-path Benchmarks trawl-browser-bench (see Benchmarks/README.md).")

    @Option(help: "The network-quiet window a page settles after, in milliseconds.")
    var quiet = 400

    @Option(help: "Pages per run.")
    var pages = 40

    // Reading smaps_rollup costs CPU here too: without it, trawl's own CPU is its own.
    @Flag(name: .customLong("pss"), inversion: .prefixedNo, help: "Sample the browser's PSS (the reads of /proc count in trawl's CPU).")
    var samplesPSS = true

    @Option(help: ArgumentHelp("Concurrencies measured.", valueName: "n,n,…"))
    var concurrency = CommaList([1, 4, 8])

    /// `--variant NAME='--switch-a --switch-b'`: the same pages with these Chromium switches
    /// added, interleaved with the default in one run (repeatable).
    @Option(
        name: .customLong("variant"),
        help: ArgumentHelp(
            "The same pages with these Chromium switches added, interleaved with the default in one run (repeatable).",
            valueName: "name='--switch …'"))
    var variantSpecs: [String] = []

    func run() async throws { try await BrowserBenchmark.run(self) }
}

enum BrowserBenchmark {
    static func run(_ options: BrowserBench) async throws {
        let quiet = options.quiet
        let pagesPerRun = options.pages
        let samplesPSS = options.samplesPSS
        var variants: [(name: String, arguments: [String])] = [("default", [])]
        for spec in options.variantSpecs {
            let name = String(spec.prefix { $0 != "=" })
            let switches = spec.dropFirst(name.count + 1).split(separator: " ").map(String.init)
            variants.append((name, switches))
        }
        let concurrencies = options.concurrency.values
        let server = try LoopbackServer(keepsAlive: true) { request in
            if request.path.hasPrefix("/api/") {
                return .json(#"{"items":[{"gif":"https://media.test\#(request.path).gif"}]}"#)
            }
            return .html(
                """
                <!doctype html><html><head><title>JS page</title></head><body><div id="root"></div><script>
                fetch('/api' + location.pathname).then(r => r.json()).then(d => {
                  document.getElementById('root').innerHTML = d.items.map(i => '<img src="' + i.gif + '">').join('');
                });
                </script></body></html>
                """)
        }
        defer { server.shutdown() }
        print("quiet window \(quiet) ms, \(pagesPerRun) pages per run, pages on http://js.test → 127.0.0.1:\(server.port)")

        let clock = ContinuousClock()
        for concurrency in concurrencies {
            for variant in variants {
                var configuration = BrowserConfiguration(
                    quietWindow: .milliseconds(quiet), maxPages: concurrency, connectTo: ["::127.0.0.1:\(server.port)"])
                configuration.extraArguments = variant.arguments
                let pool = BrowserPool(configuration: configuration)
                let start = clock.now
                let firstPayload = FirstArrival()
                let first = try await pool.render(FetchRequest(url: URL(string: "http://js.test/first")!)) { _ in firstPayload.mark() }
                let firstPage = clock.now - start
                let firstMedia = (firstPayload.instant ?? clock.now) - start
                precondition(String(decoding: first.html, as: UTF8.self).contains(".gif"), "the first page has no media")
                let startup = await pool.lastStartupTime ?? .zero
                let pid = await pool.browserProcessID ?? 0
                let sampler = PSSSampler(root: pid)
                let sampling = Task { samplesPSS ? await sampler.run() : 0 }
                let byType = ProcessTypeCPU(root: pid)
                let typeSampling = Task { await byType.run() }

                var settleTimes: [Duration] = []
                if concurrency == 1 {
                    for n in 0..<5 {
                        let t = clock.now
                        _ = try await pool.render(FetchRequest(url: URL(string: "http://js.test/warm\(n)")!))
                        settleTimes.append(clock.now - t)
                    }
                }
                let browserCPUStart = sampler.cpuSeconds()
                let ownCPUStart = PSSSampler(root: getpid()).ownCPUSeconds()
                let runStart = clock.now
                let withMedia = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for n in 0..<pagesPerRun {
                        group.addTask {
                            let page = try await pool.render(FetchRequest(url: URL(string: "http://js.test/c\(concurrency)-\(n)")!))
                            return page.responses.count == 1 && String(decoding: page.html, as: UTF8.self).contains(".gif")
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                let elapsed = clock.now - runStart
                let browserCPU = (sampler.cpuSeconds() - browserCPUStart) / Double(pagesPerRun)
                let ownCPU = (PSSSampler(root: getpid()).ownCPUSeconds() - ownCPUStart) / Double(pagesPerRun)
                sampling.cancel()
                typeSampling.cancel()
                let peak = await sampling.value
                let types = await typeSampling.value
                await pool.shutdown()
                let rate = Double(pagesPerRun) / seconds(elapsed)
                var line = "[\(variant.name)] concurrency \(concurrency): \(String(format: "%.2f", rate)) pages/s (\(withMedia)/\(pagesPerRun) with media)"
                line += ", CPU/page: browser \(String(format: "%.0f", browserCPU * 1000)) ms + trawl \(String(format: "%.0f", ownCPU * 1000)) ms"
                // Renderers come and go with their pages: theirs is the tree's total less the
                // processes that live through the run (what exited is counted by its parent).
                let longLived = types.byType.values.reduce(0, +)
                let split = types.byType.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.0f", $0.value / Double(pagesPerRun) * 1000))" }
                line +=
                    " (renderers \(String(format: "%.0f", (browserCPU - longLived / Double(pagesPerRun)) * 1000)), " + split.joined(separator: ", ")
                    + "; \(types.renderers) renderer processes seen)"
                if samplesPSS { line += ", peak browser PSS \(peak / 1024) MB" }
                line += ", launch→first reply \(ms(startup)), launch→first XHR payload with media \(ms(firstMedia)), launch→first settled DOM \(ms(firstPage))"
                if !settleTimes.isEmpty {
                    let sorted = settleTimes.sorted()
                    line += ", warm page → settled DOM median \(ms(sorted[sorted.count / 2]))"
                }
                print(line)
            }
        }
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
    static func ms(_ d: Duration) -> String { String(format: "%.0f ms", seconds(d) * 1000) }
}

/// CPU seconds, by Chromium process type (`--type=`), of the browser's processes other than
/// renderers, over the time it runs: sampled every 100 ms (their own time, not their children's).
struct ProcessTypeCPU: Sendable {
    let root: Int32

    /// CPU seconds by type, and how many renderer processes were seen (one per page expected:
    /// a tab's first renderer kept through its navigation, not replaced).
    func run() async -> (byType: [String: Double], renderers: Int) {
        var first: [Int32: Double] = [:]
        var last: [Int32: (type: String, ticks: Double)] = [:]
        var renderers = Set<Int32>()
        while !Task.isCancelled {
            for pid in [root] + ProcessTree.descendants(of: root) {
                let type = Self.type(of: pid)
                if type == "renderer" { renderers.insert(pid) }
                guard type != "renderer", let ticks = Self.ticks(pid) else { continue }
                if first[pid] == nil { first[pid] = ticks }
                last[pid] = (type, ticks)
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        var byType: [String: Double] = [:]
        for (pid, sample) in last { byType[sample.type, default: 0] += (sample.ticks - (first[pid] ?? sample.ticks)) }
        return (byType.mapValues { $0 / Double(sysconf(Int32(_SC_CLK_TCK))) }, renderers.count)
    }

    /// `browser`, `renderer`, `gpu-process`, `network`, `zygote`, `utility`, …
    static func type(of pid: Int32) -> String {
        // Read to the end: /proc files report a size of 0, which a whole-file read may trust.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/cmdline") else { return "gone" }
        defer { try? handle.close() }
        let data = handle.readDataToEndOfFile()
        // Chromium rewrites its helpers' titles: their arguments come as one space-separated string.
        let arguments = data.split { $0 == 0 || $0 == UInt8(ascii: " ") }.map { String(decoding: $0, as: UTF8.self) }
        guard let type = arguments.first(where: { $0.hasPrefix("--type=") })?.dropFirst(7) else { return "browser" }
        if type == "utility", arguments.contains(where: { $0.contains("NetworkService") }) { return "network" }
        return String(type)
    }

    static func ticks(_ pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12 else { return nil }
        return (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
    }
}

/// When something first happened.
final class FirstArrival: Sendable {
    private let first = Mutex<ContinuousClock.Instant?>(nil)

    func mark() { first.withLock { $0 = $0 ?? .now } }
    var instant: ContinuousClock.Instant? { first.withLock { $0 } }
}

/// Samples the proportional set size of a process and its descendants every 100 ms; the peak, in KiB.
struct PSSSampler: Sendable {
    let root: Int32

    func run() async -> Int {
        var peak = 0
        while !Task.isCancelled {
            peak = max(peak, sample())
            try? await Task.sleep(for: .milliseconds(100))
        }
        return max(peak, sample())
    }

    /// CPU seconds of the browser tree: live processes, plus children the browser reaped.
    func cpuSeconds() -> Double {
        tree().reduce(0) { $0 + ticks($1, fields: [11, 12, 13, 14]) } / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds of `root` alone.
    func ownCPUSeconds() -> Double {
        ticks(root, fields: [11, 12]) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private func ticks(_ pid: Int32, fields wanted: [Int]) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return wanted.reduce(0) { $0 + (fields.count > $1 ? Double(fields[$1]) ?? 0 : 0) }
    }

    func sample() -> Int {
        var total = 0
        for pid in tree() {
            guard let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { continue }
            for line in rollup.split(separator: "\n") where line.hasPrefix("Pss:") {
                total += Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
            }
        }
        return total
    }

    private func tree() -> [Int32] { [root] + ProcessTree.descendants(of: root) }
}
