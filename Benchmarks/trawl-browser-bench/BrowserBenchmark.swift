import Foundation
import Synchronization
import TrawlBrowser
import TrawlCore
import TrawlTesting

/// Figures for the browser loader on small JavaScript pages served on loopback: time to the
/// browser's first reply, time to a settled DOM, pages/s at concurrency 1/4/8, and the peak PSS of
/// the browser's process tree. `swift run -c release trawl-browser-bench [--quiet MS] [--pages N] [--no-pss]`.
/// Trawl's CPU includes the in-process loopback server that serves the pages (and, unless
/// `--no-pss`, the PSS sampler's reads of /proc).
enum BrowserBenchmark {
    static func run(_ arguments: [String]) async throws {
        var quiet = 400
        var pagesPerRun = 40
        var samplesPSS = true
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--quiet": quiet = Int(arguments[index + 1]) ?? quiet; index += 2
            case "--pages": pagesPerRun = Int(arguments[index + 1]) ?? pagesPerRun; index += 2
            // Reading smaps_rollup costs CPU here too: without it, trawl's own CPU is its own.
            case "--no-pss": samplesPSS = false; index += 1
            default: index += 1
            }
        }
        let server = try LoopbackServer(keepsAlive: true) { request in
            if request.path.hasPrefix("/api/") {
                return .json(#"{"items":[{"gif":"https://media.test\#(request.path).gif"}]}"#)
            }
            return .html("""
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
        for concurrency in [1, 4, 8] {
            let configuration = BrowserConfiguration(
                quietWindow: .milliseconds(quiet), maxPages: concurrency, connectTo: ["::127.0.0.1:\(server.port)"])
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
            let peak = await sampling.value
            await pool.shutdown()
            let rate = Double(pagesPerRun) / seconds(elapsed)
            var line = "concurrency \(concurrency): \(String(format: "%.2f", rate)) pages/s (\(withMedia)/\(pagesPerRun) with media)"
            line += ", CPU/page: browser \(String(format: "%.0f", browserCPU * 1000)) ms + trawl \(String(format: "%.0f", ownCPU * 1000)) ms"
            if samplesPSS { line += ", peak browser PSS \(peak / 1024) MB" }
            line += ", launch→first reply \(ms(startup)), launch→first XHR payload with media \(ms(firstMedia)), launch→first settled DOM \(ms(firstPage))"
            if !settleTimes.isEmpty {
                let sorted = settleTimes.sorted()
                line += ", warm page → settled DOM median \(ms(sorted[sorted.count / 2]))"
            }
            print(line)
        }
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
    static func ms(_ d: Duration) -> String { String(format: "%.0f ms", seconds(d) * 1000) }
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
