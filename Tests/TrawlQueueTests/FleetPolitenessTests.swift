import Foundation
import Synchronization
import Testing
import TrawlBatch
import TrawlQueue
import TrawlQueueWorker
import TrawlTesting

/// Politeness held by the queue's host rows for every worker, not per worker.
@Suite("Queue politeness across workers", .timeLimit(.minutes(5)), .tags(.postgres))
struct FleetPolitenessTests {
    @Test("Three workers never exceed the per-host cap together")
    func perHostCapAcrossWorkers() async throws {
        let meter = ConcurrencyMeter()
        let hosts = ["a.test", "b.test", "c.test"]
        let fixture = try await QueueFixture(hosts: hosts) { request in
            let host = request.header("host") ?? "?"
            meter.enter(host)
            // Held until a second request of the host is in flight (or 2 s pass): a cap that
            // let more through would show them together, however the threads are timed.
            meter.waitUntil(host, inFlight: 2, before: Date().addingTimeInterval(2))
            meter.leave(host)
            return QueueFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList(hosts.flatMap { host in (1...12).map { "http://\(host)/page/\($0)" } })
        // Each worker alone would allow 8 in flight, 2 per host: three of them together still 2.
        let configuration = fixture.configuration(concurrency: 8, perHost: 2)
        let finished = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let finished = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<3 { group.addTask { try await QueueWorker(store: store, configuration: configuration).run().finished } }
                return try await group.reduce(0, +)
            }
            try await fixture.writeOutput(store)
            #expect(try await store.status().hosts.allSatisfy { $0.inFlight == 0 }, "every host row's in-flight count is back to 0")
            return finished
        }
        #expect(finished == 36)
        let peaks = meter.peaks
        #expect(peaks.keys.sorted() == hosts)
        for host in hosts { #expect(peaks[host]! <= 2, "\(host) had \(peaks[host]!) requests in flight over the fleet") }
        #expect(peaks.values.max() == 2, "the cap was reached")
        #expect(try fixture.results().count == 36)
    }

    @Test("A Retry-After from one worker's request holds the host for every worker")
    func retryAfterHoldsTheFleet() async throws {
        let clock = ContinuousClock()
        let log = Shared<[(host: String, path: String, at: ContinuousClock.Instant)]>([])
        let refused = Shared(false)
        let fixture = try await QueueFixture(hosts: ["busy.test", "fine.test"]) { request in
            let host = request.header("host") ?? "?"
            log.withLock { $0.append((host, request.path, clock.now)) }
            if host == "busy.test",
                refused.withLock({ was in
                    defer { was = true }; return !was
                })
            {
                return .status(429, headers: [("Retry-After", "2")])
            }
            return QueueFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...6).map { "http://busy.test/\($0)" } + (1...6).map { "http://fine.test/\($0)" })
        // One job per host at a time, so the first refusal comes before any other busy.test request.
        let configuration = fixture.configuration(concurrency: 4, perHost: 1)
        try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { _ = try await QueueWorker(store: store, configuration: configuration).run() } }
                try await group.waitForAll()
            }
            try await fixture.writeOutput(store)
        }
        let busy = log.withLock { $0.filter { $0.host == "busy.test" }.map(\.at) }
        #expect(busy.count == 7, "six pages and the refused first try")
        // No worker asked busy.test again inside the hold, whichever one got the 429.
        #expect(busy[1] - busy[0] >= .seconds(2), "busy.test was asked again after \(busy[1] - busy[0])")
        let results = try fixture.results()
        #expect(results.count == 12)
        #expect(results.allSatisfy { $0.status == "done" })
    }
}
