import Foundation
import Synchronization
import Testing
import TrawlBatch
import TrawlQueue
import TrawlQueueWorker
import TrawlStore
import TrawlTesting

/// Workers in one process sharing a queue on a real PostgreSQL.
@Suite("Queue workers", .timeLimit(.minutes(5)), .tags(.postgres))
struct WorkerTests {
    @Test("Four workers share a list: every input once in the output, duplicates coalesced, bad lines reported once")
    func severalWorkers() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test", "b.test", "c.test"]) { request in
            if request.path.hasSuffix("/404") { return .status(404) }
            return QueueFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        var lines = (1...240).map { "http://\(["a", "b", "c"][$0 % 3]).test/p/\($0)" }
        lines += ["http://a.test/p/3", "HTTP://A.TEST/p/3", "http://b.test/404", "not a url", "not a url", "# comment", ""]
        lines.shuffle()
        try fixture.writeList(lines)
        let configuration = fixture.configuration(concurrency: 6, perHost: 3)
        let reports = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let reports = try await withThrowingTaskGroup(of: QueueWorker.Report.self) { group in
                for _ in 0..<4 { group.addTask { try await QueueWorker(store: store, configuration: configuration).run() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await fixture.writeOutput(store)
            return reports
        }
        let results = try fixture.results()
        // A URL listed three ways is one job, its input the line that came first.
        let expected = Set((1...240).map { "http://\(["a", "b", "c"][$0 % 3]).test/p/\($0)" } + ["http://b.test/404"])
        #expect(results.count == expected.count + 1)
        #expect(Set(results.compactMap(\.url)) == expected)
        #expect(results.filter { $0.input == "not a url" }.count == 1)
        let firstOfThree = lines.first { $0.lowercased() == "http://a.test/p/3" }
        #expect(results.first { $0.url == "http://a.test/p/3" }?.input == firstOfThree)
        #expect(reports.map(\.finished).reduce(0, +) == 241, "240 pages and the 404; the bad line failed at push")
        #expect(reports.allSatisfy { $0.discarded == 0 })
        let three = results.first { $0.url == "http://a.test/p/3" }
        #expect(three?.duplicates == 2)
        #expect(three?.media?.map(\.url) == [QueueFixture.gif(for: "/p/3")])
        #expect(results.first { $0.input == "http://b.test/404" }?.error?.code == "http-404")
        #expect(results.first { $0.input == "not a url" }?.status == "failed")
        // Each page was fetched once, whichever worker claimed it.
        let fetched = fixture.server.requests.map(\.path).filter { $0.hasPrefix("/p/") }
        #expect(fetched.count == Set(fetched).count)
    }

    @Test("An idle worker is woken by NOTIFY when work is pushed (its lease timer is an hour away)")
    func notifyWakesIdleWorker() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        var waiting = fixture.configuration()
        waiting.exitWhenEmpty = false
        waiting.lease = .seconds(3600)
        let configuration = waiting
        try fixture.writeList(["http://a.test/late/1", "http://a.test/late/2"])
        let idle = Watched(0)
        let finished = Watched(0)
        try await fixture.withStore { store in
            let worker = Task {
                try await QueueWorker(store: store, configuration: configuration).run { event in
                    switch event {
                    case .idle: idle.update { $0 += 1 }
                    case .finished: finished.update { $0 += 1 }
                    }
                }
            }
            // The queue is empty: the worker claims nothing and waits, with no timer set.
            try await idle.wait(for: "the worker to find the queue empty") { $0 >= 1 }
            #expect(try await store.nextWake(rules: ClaimRules(perHost: 2, delay: 0)) == nil)
            try await fixture.push(store, configuration: configuration)
            try await finished.wait(for: "the worker to finish both jobs") { $0 == 2 }
            worker.cancel()
            _ = try await worker.value
        }
        #expect(fixture.server.requests.map(\.path).sorted() == ["/late/1", "/late/2"])
    }

    @Test("A lease that expires while its worker is only slow: the job goes to another worker, the late result is discarded")
    func lateResultDiscarded() async throws {
        let release = Watched(false)
        let slowArrived = Watched(false)
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in
            // The first request for /slow hangs until the test lets it go; later ones answer at once.
            let first =
                request.path == "/slow"
                && slowArrived.update { was in
                    defer { was = true }
                    return !was
                }
            if first {
                _ = try? release.block(for: "the test to release /slow") { $0 }
                return .html("<html><head><meta property=\"og:image\" content=\"https://media.test/late.gif\"></head></html>")
            }
            return QueueFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://a.test/slow"])
        let configuration = fixture.configuration()
        let (slowReport, fastReport) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            var slowConfiguration = configuration
            slowConfiguration.exitWhenEmpty = false
            // One slot: while its request hangs it claims nothing more (not even the job again).
            slowConfiguration.batch.concurrency = 1
            let slow = QueueWorker(store: store, configuration: slowConfiguration, id: "slow")
            let slowVerdict = Watched<Bool?>(nil)
            let slowRun = Task {
                try await slow.run { event in
                    if case .finished(_, _, let kept) = event { slowVerdict.set(kept) }
                }
            }
            try await slowArrived.wait(for: "the request for /slow")
            // The slow worker's lease runs out (the reaper is asked as if its time had passed).
            let reaped = try await store.reap(now: Date().timeIntervalSince1970 + 3600)
            #expect(reaped == 1)
            let fastReport = try await QueueWorker(store: store, configuration: configuration, id: "fast").run()
            // Now the slow worker's answer arrives, late, and its commit finds the lease gone.
            release.set(true)
            try await slowVerdict.wait(for: "the slow worker's verdict on its late result") { $0 != nil }
            slowRun.cancel()
            let slowReport = try await slowRun.value
            try await fixture.writeOutput(store)
            return (slowReport, fastReport)
        }
        #expect(slowReport.discarded == 1)
        #expect(slowReport.finished == 0)
        #expect(fastReport.finished == 1)
        let results = try fixture.results()
        #expect(results.count == 1)
        #expect(results.first?.media?.map(\.url) == [QueueFixture.gif(for: "/slow")], "the result is the second worker's")
        #expect(results.first?.attempts == 2)
    }

    @Test(
        "A worker renews only the leases it holds: a job the queue shows as its own but that it does not run (a finish lost in a server crash) expires and is worked again"
    )
    func renewsOnlyHeldLeases() async throws {
        let release = Watched(false)
        let slowArrived = Watched(false)
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in
            if request.path == "/slow" {
                slowArrived.set(true)
                _ = try? release.block(for: "the test to release /slow") { $0 }
            }
            return QueueFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://a.test/slow", "http://a.test/ghost"])
        let database = String(fixture.url.split(separator: "/").last!)
        var configuration = fixture.configuration(concurrency: 2, perHost: 2)
        configuration.exitWhenEmpty = false
        // Long enough that a loaded machine (a CI run beside builds) still renews in time; the
        // ghost's lease is written short below.
        configuration.lease = .seconds(3)
        let worker = configuration
        @Sendable func job(_ path: String) async throws -> String {
            try await fixture.cluster.psql(
                "SELECT state || ' ' || attempts FROM trawl_job WHERE key = 'http://a.test/\(path)'", database: database
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let (ghost, slow) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: worker)
            // What a server crash leaves when it loses a finish that did not wait for the disk:
            // the job is running under the worker's name, its slot counted, but the worker
            // has moved on.
            try await fixture.cluster.psql(
                """
                UPDATE trawl_job SET state = 'running', attempts = 1, lease_owner = 'w',
                    lease_until = extract(epoch FROM now()) + 0.6 WHERE key = 'http://a.test/ghost';
                UPDATE trawl_host SET in_flight = 1 WHERE name = 'a.test';
                """, database: database)
            let run = Task { try await QueueWorker(store: store, configuration: worker, id: "w").run() }
            try await slowArrived.wait(for: "the request for /slow")
            // The ghost's lease runs out (the worker does not renew it), the worker's own
            // reaper returns it and the worker takes it again, while /slow still hangs.
            try await waitUntil("the ghost job to be worked again", within: .seconds(30), interval: .milliseconds(20)) {
                (try? await job("ghost")) == "done 2"
            }
            // /slow's lease, renewed every second, never ran out: still its first attempt.
            let slow = try await job("slow")
            release.set(true)
            run.cancel()
            _ = try await run.value
            return (try await job("ghost"), slow)
        }
        #expect(ghost == "done 2", "the unheld lease expired and the job was worked again: \(ghost)")
        #expect(slow == "running 1", "the held lease was renewed: \(slow)")
    }

    @Test("A worker that finds the queue drained wakes the others waiting for the last finish (a finish can miss the drain when another commits at once)")
    func drainedQueueWakesWaitingWorkers() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://a.test/ghost"])
        let database = String(fixture.url.split(separator: "/").last!)
        var configuration = fixture.configuration()
        configuration.exitWhenEmpty = true
        configuration.lease = .seconds(3600)
        let waiting = configuration
        let idle = Watched(0)
        let firstLeft = Watched(false)
        try await fixture.withStore { store in
            try await fixture.push(store, configuration: waiting)
            // Another worker's last job, running.
            try await fixture.cluster.psql(
                """
                UPDATE trawl_job SET state = 'running', attempts = 1, lease_owner = 'other',
                    lease_until = extract(epoch FROM now()) + 3600;
                UPDATE trawl_host SET in_flight = 1;
                """, database: database)
            let first = Task {
                defer { firstLeft.set(true) }
                return try await QueueWorker(store: store, configuration: waiting, id: "first").run { event in
                    if case .idle = event { idle.update { $0 += 1 } }
                }
            }
            // It finds work unfinished (the other's job) and waits: its timer is an hour away.
            try await idle.wait(for: "the first worker to wait for the other's job") { $0 >= 1 }
            // That job ends without a notification, as a finish whose snapshot still saw
            // another's job running does.
            try await fixture.cluster.psql(
                """
                UPDATE trawl_job SET state = 'done', lease_owner = NULL, lease_until = NULL;
                UPDATE trawl_host SET in_flight = 0;
                """, database: database)
            // The next worker to look finds nothing left, leaves, and wakes the first, which
            // looks again and leaves too.
            _ = try await QueueWorker(store: store, configuration: waiting, id: "second").run()
            try await firstLeft.wait(for: "the first worker to leave", within: .seconds(30))
            _ = try await first.value
        }
        #expect(firstLeft.value)
    }
}
