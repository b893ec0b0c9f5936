import Foundation
import Testing
import TrawlTesting

@testable import TrawlQueue

/// Whether a queue has work left, asked when it has run dry: the moment every worker asks.
@Suite("Queue drained check", .timeLimit(.minutes(5)), .tags(.postgres))
struct DrainedQueueTests {
    @Test("A queue whose jobs all ended is seen drained through the partial indexes, not by scanning every job; a pending or running job is seen")
    func drainedWithoutTableScan() async throws {
        let fixture = try await QueueFixture(hosts: []) { _ in .status(404) }
        defer { fixture.server.shutdown() }
        let database = fixture.database
        try await fixture.withStore { _ in }
        // As a run leaves it: statistics taken after the push (every job pending), then every
        // job claimed and finished.
        try await fixture.cluster.psql(
            """
            INSERT INTO trawl_job (key, input, url, host, state, updated_at)
                SELECT 'http://h' || (n % 100) || '.test/' || n, 'x', 'x', 'h' || (n % 100) || '.test', 'pending', 0 FROM generate_series(1, 20000) n;
            ANALYZE trawl_job;
            UPDATE trawl_job SET state = 'running', lease_owner = 'w', lease_until = 1;
            UPDATE trawl_job SET state = 'done', lease_owner = NULL, lease_until = NULL;
            """, database: database)
        let plan = try await fixture.cluster.psql("EXPLAIN " + QueueStore.unfinishedWorkSQL, database: database)
        #expect(!plan.contains("Seq Scan on trawl_job"), "\(plan)")
        #expect(plan.contains("trawl_job_claimable") && plan.contains("trawl_job_leased"), "\(plan)")

        #expect(try await fixture.withStore { store in try await store.hasUnfinishedWork() } == false)
        try await fixture.cluster.psql("UPDATE trawl_job SET state = 'running', lease_owner = 'w', lease_until = 1 WHERE id = 7", database: database)
        #expect(try await fixture.withStore { store in try await store.hasUnfinishedWork() } == true)
        try await fixture.cluster.psql("UPDATE trawl_job SET state = 'retry-later', lease_owner = NULL, lease_until = NULL WHERE id = 7", database: database)
        #expect(try await fixture.withStore { store in try await store.hasUnfinishedWork() } == true)
    }
}
