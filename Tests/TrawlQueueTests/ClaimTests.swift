import Foundation
import Testing
import TrawlBatch
import TrawlQueue
import TrawlStore
import TrawlTesting

/// Claims on a real PostgreSQL, called directly.
@Suite("Queue claims")
struct ClaimTests {
    @Test("Claims of one job each go round the hosts: a host the claim did not take from keeps its place")
    func smallClaimsRotate() async throws {
        let fixture = try QueueFixture(hosts: ["a.test", "b.test", "c.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...12).map { "http://\(["a", "b", "c"][$0 % 3]).test/p/\($0)" })
        let configuration = fixture.configuration(concurrency: 8, perHost: 2)
        let rules = ClaimRules(perHost: 2, delay: 0)
        let hosts = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            var hosts: [String] = []
            for n in 1...3 {
                let now = Date().timeIntervalSince1970 + Double(n)
                let jobs = try await store.claim(limit: 1, owner: "w", rules: rules, now: now, leaseUntil: now + 60)
                #expect(jobs.count == 1, "claim \(n) leased \(jobs.count) jobs")
                hosts += jobs.compactMap(\.host)
            }
            return hosts
        }
        #expect(hosts.sorted() == ["a.test", "b.test", "c.test"], "three claims took from \(hosts)")
    }

    @Test("Slots finishes give back count at once for every worker's claims, and the next claim on the host folds them into its count")
    func returnedSlotsAreFolded() async throws {
        let fixture = try QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...12).map { "http://a.test/p/\($0)" })
        let configuration = fixture.configuration(concurrency: 8, perHost: 4)
        let rules = ClaimRules(perHost: 4, delay: 0)
        let database = String(fixture.url.split(separator: "/").last!)
        @Sendable func counts() throws -> String {
            try fixture.cluster.psql(
                "SELECT in_flight || ' ' || COALESCE((SELECT SUM(n) FROM trawl_host_returned), 0) FROM trawl_host", database: database
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let (first, full, second, afterFold, third) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let now = Date().timeIntervalSince1970
            let first = try await store.claim(limit: 8, owner: "v", rules: rules, now: now, leaseUntil: now + 60)
            // The host is at its cap: another worker gets nothing.
            let full = try await store.claim(limit: 8, owner: "w", rules: rules, now: now + 1, leaseUntil: now + 60)
            let finishes = first.map { job in
                QueueFinish(jobID: job.id, attempt: job.attempts, outcome: .done(JobResult(line: "{}", httpStatus: 200)), holdUntil: nil)
            }
            try await store.finish(finishes, owner: "v", rules: rules, now: now + 2)
            let returned = try counts()
            // Another worker's claim sees the slots given back and folds them.
            let second = try await store.claim(limit: 8, owner: "w", rules: rules, now: now + 3, leaseUntil: now + 60)
            let afterFold = try counts()
            let third = try await store.claim(limit: 8, owner: "v", rules: rules, now: now + 4, leaseUntil: now + 60)
            return (first.count, full.count, (second.count, returned), afterFold, third.count)
        }
        #expect(first == 4, "the per-host cap")
        #expect(full == 0, "the host was full")
        #expect(second.1 == "4 4", "the finish left in_flight and gave its 4 slots back in its own row")
        #expect(second.0 == 4, "the returned slots are free for another worker")
        #expect(afterFold == "4 0", "the claim folded the returned rows: 4 + 4 claimed - 4 returned")
        #expect(third == 0, "the cap holds after the fold")
    }
}
