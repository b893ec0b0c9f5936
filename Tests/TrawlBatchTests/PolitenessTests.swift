import Foundation
import Synchronization
import Testing
import TrawlBatch
import TrawlTesting

/// Politeness against a loopback server standing in for several hosts.
@Suite("Batch politeness", .timeLimit(.minutes(5)))
struct PolitenessTests {
    @Test("The per-host cap is never exceeded, whatever the overall concurrency")
    func perHostCap() async throws {
        let meter = ConcurrencyMeter()
        let hosts = ["a.test", "b.test", "c.test"]
        let fixture = try BatchFixture(hosts: hosts) { request in
            let host = request.header("host") ?? "?"
            meter.enter(host)
            // Held until a second request of the host arrives (or 2 s pass), so a cap that let
            // more through would show them in flight together, however the threads are timed.
            meter.waitUntil(host, inFlight: 2, before: Date().addingTimeInterval(2))
            meter.leave(host)
            return BatchFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList(hosts.flatMap { host in (1...12).map { "http://\(host)/page/\($0)" } })
        let report = try await fixture.run(fixture.configuration(concurrency: 8, perHost: 2))

        #expect(report.summary.progress[.done] == 36)
        let peaks = meter.peaks
        #expect(peaks.keys.sorted() == hosts)
        for host in hosts { #expect(peaks[host]! <= 2, "\(host) had \(peaks[host]!) requests in flight") }
        #expect(peaks.values.max() == 2, "the cap was reached")
        let results = try fixture.results()
        #expect(results.count == 36)
        #expect(results.allSatisfy { $0.media?.count == 1 })
    }

    @Test("429 and 503 with Retry-After hold that host only; the retry succeeds")
    func retryAfter() async throws {
        // Time is a test clock the test moves: the holds are checked, never sat out, and the
        // order of events does not depend on how fast the machine is.
        let clock = TestClock()
        let log = Mutex<[(host: String, path: String, at: Duration)]>([])
        let refused = Mutex<Set<String>>([])
        let fixture = try BatchFixture(hosts: ["slow.test", "busy.test", "fine.test"]) { request in
            let host = request.header("host") ?? "?"
            log.withLock { $0.append((host, request.path, clock.now.offset)) }
            let first = refused.withLock { $0.insert(host + request.path).inserted }
            if host == "slow.test", first { return .status(429, headers: [("Retry-After", "1")]) }
            if host == "busy.test", first { return .status(503, headers: [("Retry-After", "1")]) }
            return BatchFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://slow.test/1", "http://busy.test/1"] + (1...6).map { "http://fine.test/\($0)" })
        let configuration = fixture.configuration(concurrency: 4, perHost: 2)
        let ended = Mutex(false)
        let run = Task {
            defer { ended.withLock { $0 = true } }
            return try await fixture.run(configuration, clock: clock)
        }

        // Clock stopped at zero: every first request is made, the fine host is served in full,
        // and the held hosts are not asked again.
        func requests(_ host: String) -> [Duration] { log.withLock { $0.filter { $0.host == host }.map(\.at) } }
        try await waitUntil { requests("fine.test").count == 6 && requests("slow.test").count == 1 && requests("busy.test").count == 1 }
        let wake = try await clock.nextSleep()
        #expect(wake >= .seconds(1), "the run next wakes at \(wake), inside the hold")
        #expect(requests("slow.test").count == 1 && requests("busy.test").count == 1)
        // Then time moves to each wake-up the run asks for, until it ends.
        try await waitUntil {
            if let next = clock.pendingDeadlines.first { clock.advance(to: next) }
            return ended.withLock { $0 }
        }
        let report = try await run.value
        #expect(report.summary.progress[.done] == 8)

        for host in ["slow.test", "busy.test"] {
            let times = requests(host)
            #expect(times.count == 2)
            // The host was left alone for the whole Retry-After.
            #expect(times[1] - times[0] >= .seconds(1), "\(host) was asked again after \(times[1] - times[0])")
        }
        #expect(requests("fine.test").allSatisfy { $0 == .zero })
        let slow = try fixture.results().first { $0.url == "http://slow.test/1" }
        #expect(slow?.attempts == 2)
        #expect(slow?.status == "done")
    }

    @Test("5xx backs off and retries; 404 fails at once; exhausted retries fail with the last error")
    func transientAndPermanent() async throws {
        let counts = Mutex<[String: Int]>([:])
        let fixture = try BatchFixture(hosts: ["a.test"]) { request in
            let n = counts.withLock {
                $0[request.path, default: 0] += 1; return $0[request.path]!
            }
            switch request.path {
            case "/flaky": return n < 3 ? .status(500) : BatchFixture.page("/flaky")
            case "/gone": return .status(404)
            case "/down": return .status(502)
            case "/reset": return .hangUp
            default: return BatchFixture.page(request.path)
            }
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://a.test/flaky", "http://a.test/gone", "http://a.test/down", "http://a.test/reset"])
        var configuration = fixture.configuration()
        configuration.fetch.retries = 2
        try await fixture.run(configuration)
        let results = Dictionary(uniqueKeysWithValues: try fixture.results().map { ($0.url ?? "", $0) })
        #expect(results["http://a.test/flaky"]?.status == "done")
        #expect(results["http://a.test/flaky"]?.attempts == 3)
        #expect(results["http://a.test/gone"]?.status == "failed")
        #expect(results["http://a.test/gone"]?.attempts == 1)
        #expect(results["http://a.test/gone"]?.error?.code == "http-404")
        #expect(results["http://a.test/down"]?.attempts == 3)
        #expect(results["http://a.test/down"]?.error?.code == "http-502")
        #expect(results["http://a.test/reset"]?.status == "failed")
        #expect(results["http://a.test/reset"]?.attempts == 3)
        #expect(counts.withLock { $0["/gone"] } == 1)
    }

    @Test("robots.txt, when asked for, keeps disallowed paths unfetched")
    func robots() async throws {
        let fixture = try BatchFixture(hosts: ["a.test"]) { request in
            if request.path == "/robots.txt" { return .ok(body: Data("User-agent: *\nDisallow: /private\nAllow: /private/ok\n".utf8)) }
            return BatchFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://a.test/private/x", "http://a.test/private/ok", "http://a.test/public"])
        var configuration = fixture.configuration()
        configuration.robots = true
        try await fixture.run(configuration)
        let results = Dictionary(uniqueKeysWithValues: try fixture.results().map { ($0.url ?? "", $0) })
        #expect(results["http://a.test/private/x"]?.error?.code == "robots-disallowed")
        #expect(results["http://a.test/private/ok"]?.status == "done")
        #expect(results["http://a.test/public"]?.status == "done")
        #expect(!fixture.server.requests.contains { $0.path == "/private/x" })
        #expect(fixture.server.requests.filter { $0.path == "/robots.txt" }.count == 1)
    }
}
