import Foundation
import Testing
import TrawlBatch
import TrawlQueue
import TrawlStore
import TrawlTesting

/// Claims on a real PostgreSQL, called directly.
@Suite("Queue claims", .timeLimit(.minutes(5)), .tags(.postgres))
struct ClaimTests {
    @Test("Claims of one job each go round the hosts: a host the claim did not take from keeps its place")
    func smallClaimsRotate() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test", "b.test", "c.test"]) { request in QueueFixture.page(request.path) }
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
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...12).map { "http://a.test/p/\($0)" })
        let configuration = fixture.configuration(concurrency: 8, perHost: 4)
        let rules = ClaimRules(perHost: 4, delay: 0)
        let database = String(fixture.url.split(separator: "/").last!)
        @Sendable func counts() async throws -> String {
            try await fixture.cluster.psql(
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
            let returned = try await counts()
            // Another worker's claim sees the slots given back and folds them.
            let second = try await store.claim(limit: 8, owner: "w", rules: rules, now: now + 3, leaseUntil: now + 60)
            let afterFold = try await counts()
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

    @Test("A finish takes over the slots it frees: the next jobs of the same host come leased in its transaction, the host's count unchanged, the cap kept")
    func finishTakesOverFreedSlots() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test", "b.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...10).map { "http://a.test/p/\($0)" } + (1...4).map { "http://b.test/p/\($0)" })
        let configuration = fixture.configuration(concurrency: 8, perHost: 3)
        let rules = ClaimRules(perHost: 3, delay: 0)
        let database = String(fixture.url.split(separator: "/").last!)
        @Sendable func counts(_ host: String) async throws -> String {
            try await fixture.cluster.psql(
                "SELECT in_flight || ' ' || COALESCE((SELECT SUM(n) FROM trawl_host_returned WHERE host = '\(host)'), 0) FROM trawl_host WHERE name = '\(host)'",
                database: database
            ).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        @Sendable func done(_ job: Job) -> QueueFinish {
            QueueFinish(jobID: job.id, attempt: job.attempts, outcome: .done(JobResult(line: "{\"input\":\"\(job.input)\"}", httpStatus: 200)), holdUntil: nil)
        }
        let (first, next, countsAfter, capped, late, afterLate) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let now = Date().timeIntervalSince1970
            let first = try await store.claim(limit: 8, owner: "v", rules: rules, now: now, leaseUntil: now + 60)
            let fromA = first.filter { $0.host == "a.test" }
            // Two of a.test's three finish and ask for up to five: only their two slots are
            // taken over, from a.test only (b.test's slots are not theirs to fill).
            let result = try await store.finish(Array(fromA.prefix(2)).map(done), owner: "v", rules: rules, now: now + 1, takeOver: 5, leaseUntil: now + 60)
            let countsAfter = (try await counts("a.test"), try await counts("b.test"))
            // Another worker still finds a.test full.
            let capped = try await store.claim(limit: 8, owner: "w", rules: rules, now: now + 2, leaseUntil: now + 60)
            // A late result (its lease expired and was reaped) frees nothing to take over.
            try await store.reap(now: now + 120)
            let late = try await store.finish(result.next.map(done), owner: "v", rules: rules, now: now + 121, takeOver: 5, leaseUntil: now + 180)
            return (first, result, countsAfter, capped, late, try await counts("a.test"))
        }
        #expect(first.filter { $0.host == "a.test" }.count == 3 && first.filter { $0.host == "b.test" }.count == 3, "the cap of 3 per host")
        #expect(next.discarded.isEmpty)
        #expect(next.next.count == 2, "one job per freed slot, not five: \(next.next.map(\.input))")
        #expect(next.next.allSatisfy { $0.host == "a.test" && $0.state == .pending && $0.attempts == 1 })
        #expect(Set(next.next.map(\.id)).isDisjoint(with: first.map(\.id)))
        #expect(countsAfter.0 == "3 0", "a.test: the slots changed hands, nothing given back: \(countsAfter.0)")
        #expect(countsAfter.1 == "3 0", "b.test untouched: \(countsAfter.1)")
        #expect(capped.filter { $0.host == "a.test" }.isEmpty, "the cap held for the other worker")
        #expect(late.discarded.count == 2 && late.next.isEmpty, "late results are discarded and take nothing over")
        #expect(afterLate == "0 0", "the reaper returned the three expired leases' slots; the discarded finish gave none twice: \(afterLate)")
    }

    @Test("No take-over with a per-host delay or on a host the group holds for a Retry-After: the slots go back to the host")
    func noTakeOverUnderDelayOrHold() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...10).map { "http://a.test/p/\($0)" })
        let configuration = fixture.configuration(concurrency: 8, perHost: 4)
        let database = String(fixture.url.split(separator: "/").last!)
        let (delayed, held, inFlight) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let now = Date().timeIntervalSince1970
            let delayRules = ClaimRules(perHost: 4, delay: 0.5)
            let one = try await store.claim(limit: 1, owner: "v", rules: delayRules, now: now, leaseUntil: now + 60)
            let finishes = one.map { QueueFinish(jobID: $0.id, attempt: $0.attempts, outcome: .done(JobResult(line: "{}", httpStatus: 200)), holdUntil: nil) }
            let delayed = try await store.finish(finishes, owner: "v", rules: delayRules, now: now + 1, takeOver: 4, leaseUntil: now + 60)
            let rules = ClaimRules(perHost: 4, delay: 0)
            let two = try await store.claim(limit: 2, owner: "v", rules: rules, now: now + 2, leaseUntil: now + 60)
            let holding = two.map {
                QueueFinish(jobID: $0.id, attempt: $0.attempts, outcome: .done(JobResult(line: "{}", httpStatus: 200)), holdUntil: now + 30)
            }
            let held = try await store.finish(holding, owner: "v", rules: rules, now: now + 3, takeOver: 4, leaseUntil: now + 60)
            let returned = try await fixture.cluster.psql(
                "SELECT in_flight - COALESCE((SELECT SUM(n) FROM trawl_host_returned), 0) FROM trawl_host", database: database)
            return (delayed.next.count, held.next.count, returned.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(delayed == 0, "with a per-host delay every start goes through the host row")
        #expect(held == 0, "a host held for a Retry-After starts nothing")
        #expect(inFlight == "0", "every freed slot went back to the host: \(inFlight) in flight")
    }
}
