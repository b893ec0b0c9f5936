import Foundation
import Logging
import PostgresNIO
import Testing
import TrawlBatch
import TrawlCore
import TrawlStore
import TrawlTesting

@testable import TrawlQueue

/// A finish whose statement committed but whose answer never came, repeated by the store on
/// another connection, on a real PostgreSQL.
@Suite("Queue finishes repeated after a lost answer", .timeLimit(.minutes(2)), .tags(.postgres))
struct RepeatedFinishTests {
    static let rules = ClaimRules(perHost: 8, delay: 0)
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `finish` on a store that takes an operation unanswered for a second for lost, while
    /// another transaction holds the rows of `jobs`: its first try waits for them, and the
    /// repeat, sent on another connection, waits behind it. Both are seen waiting before the
    /// rows are let go; the first try then commits, and its answer is ignored.
    static func whileRowsAreHeld<T: Sendable>(
        _ jobs: [Int64], fixture: QueueFixture, store: QueueStore, _ finish: @escaping @Sendable (QueueStore) async throws -> T
    ) async throws -> T {
        let holder = try await PostgresConnection.connect(configuration: fixture.location.connectionConfiguration, id: 1, logger: quiet)
        let watcher = try await PostgresConnection.connect(configuration: fixture.location.connectionConfiguration, id: 2, logger: quiet)
        try await holder.query("BEGIN", logger: quiet)
        try await holder.query("SELECT id FROM trawl_job WHERE id = ANY(\(jobs)::int8[]) FOR UPDATE", logger: quiet)
        let reconnecting = store.reconnecting(stallLimit: .seconds(1))
        let task = Task { try await finish(reconnecting) }
        // Counted in this test's database only: suites running beside it share the cluster.
        try await waitUntil("the finish to be tried again while its first try waits", interval: .milliseconds(20)) {
            let rows = try await watcher.query(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH f AS (%'",
                logger: quiet)
            for try await count in rows.decode(Int64.self) { return count >= 2 }
            return false
        }
        try await holder.query("COMMIT", logger: quiet)
        let result = try await task.value
        try await holder.close()
        try await watcher.close()
        return result
    }

    static func ended(_ job: Job, _ status: String) -> QueueFinish {
        let line = BatchResultLine(input: job.input, url: job.url, status: status, media: [], attempts: job.attempts).encoded()
        let result = JobResult(line: line, httpStatus: status == "done" ? 200 : 404)
        return QueueFinish(jobID: job.id, attempt: job.attempts, outcome: status == "done" ? .done(result) : .failed(result), holdUntil: nil)
    }

    @Test(
        "A finish committed whose answer was lost is repeated: every outcome it wrote (done, failed, retry later) counts as kept, a lease another worker holds as discarded"
    )
    func repeatedAfterItsCommit() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://a.test/done", "http://a.test/failed", "http://a.test/retry", "http://a.test/taken"])
        let configuration = fixture.configuration(concurrency: 4, perHost: 4)
        let (discarded, outages, ids, retryAt) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let now = Date().timeIntervalSince1970
            let retryAt = now + 3600
            let ours = try await store.claim(limit: 3, owner: "w", rules: Self.rules, now: now, leaseUntil: now + 600)
            try #require(ours.map(\.input) == ["http://a.test/done", "http://a.test/failed", "http://a.test/retry"])
            // The fourth job's lease runs out; another worker takes it over.
            let lost = try #require(try await store.claim(limit: 1, owner: "w", rules: Self.rules, now: now, leaseUntil: now + 1).first)
            #expect(try await store.reap(now: now + 10) == 1)
            #expect(try await store.claim(limit: 1, owner: "v", rules: Self.rules, now: now + 20, leaseUntil: now + 600).map(\.id) == [lost.id])
            let finishes = [
                Self.ended(ours[0], "done"), Self.ended(ours[1], "failed"),
                QueueFinish(jobID: ours[2].id, attempt: ours[2].attempts, outcome: .retryLater(at: retryAt, error: "http-503"), holdUntil: nil),
                Self.ended(lost, "done"),
            ]

            // Our jobs' rows are held by another transaction: the finish waits for them past its
            // stall limit, is taken for lost and tried again on another connection. The first try
            // goes on in the server and commits once the rows are let go; its answer is ignored.
            let discarded = try await Self.whileRowsAreHeld(ours.map(\.id), fixture: fixture, store: store) { reconnecting in
                try await reconnecting.finish(finishes, owner: "w", rules: Self.rules, now: now + 30)
            }
            return (discarded, store.outages, ours.map(\.id) + [lost.id], retryAt)
        }
        #expect(outages.count >= 1, "the first answer was lost")
        #expect(discarded == [ids[3]], "only the job another worker holds is discarded; \(discarded.sorted()) of \(ids)")

        // The outcomes are written once, as the first try wrote them; the other worker's lease is untouched.
        let jobs = try await fixture.cluster.psql(
            "SELECT state || ' ' || attempts || ' ' || COALESCE(lease_owner, '-') || ' ' || (due_at = \(retryAt)) FROM trawl_job ORDER BY id",
            database: fixture.database)
        #expect(jobs.split(separator: "\n") == ["done 1 - false", "failed 1 - false", "retry-later 1 - true", "running 2 v false"])
        let results = try await fixture.cluster.psql("SELECT outcome || ' ' || worker FROM trawl_result ORDER BY job_id", database: fixture.database)
        #expect(results.split(separator: "\n") == ["done w", "failed w"])
    }

    @Test("A finish repeated after a lost answer hands on the jobs its first try took over, which would otherwise wait for their leases to expire")
    func repeatedFinishKeepsItsTakeOver() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...5).map { "http://a.test/p\($0)" })
        let configuration = fixture.configuration(concurrency: 2, perHost: 2)
        let rules = ClaimRules(perHost: 2, delay: 0)
        let (result, outages) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let now = Date().timeIntervalSince1970
            let ours = try await store.claim(limit: 2, owner: "w", rules: rules, now: now, leaseUntil: now + 600)
            try #require(ours.map(\.input) == ["http://a.test/p1", "http://a.test/p2"])

            // As above; the first try also takes two jobs over.
            let result = try await Self.whileRowsAreHeld(ours.map(\.id), fixture: fixture, store: store) { reconnecting in
                try await reconnecting.finish(
                    ours.map { Self.ended($0, "done") }, owner: "w", rules: rules, now: now + 30, takeOver: 2, leaseUntil: now + 630)
            }
            return (result, store.outages)
        }
        #expect(outages.count >= 1, "the first answer was lost")
        #expect(result.discarded.isEmpty)
        #expect(result.next.map(\.input) == ["http://a.test/p3", "http://a.test/p4"])
        #expect(result.next.allSatisfy { $0.state == .pending && $0.attempts == 1 })
        let jobs = try await fixture.cluster.psql(
            "SELECT state || ' ' || attempts || ' ' || COALESCE(lease_owner, '-') FROM trawl_job ORDER BY id", database: fixture.database)
        #expect(jobs.split(separator: "\n") == ["done 1 -", "done 1 -", "running 1 w", "running 1 w", "pending 0 -"])
    }
}
