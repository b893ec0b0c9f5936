import Foundation
import Testing
import TrawlQueue
import TrawlStore
import TrawlTesting

@Suite("Queue schema migrations")
struct MigrationTests {
    @Test("An empty database gets every migration, once")
    func fromEmpty() async throws {
        let fixture = try QueueFixture(hosts: []) { _ in .status(404) }
        defer { fixture.server.shutdown() }
        let applied = try await fixture.withStore { store in try await store.appliedMigrations() }
        #expect(applied == ["v1-jobs", "v2-workers", "v3-claim-order", "v4-lease-expiries"])
        // Connecting again applies nothing.
        let again = try await fixture.withStore { store in try await store.migrate() }
        #expect(again.isEmpty)
        let tables = try fixture.cluster.psql(
            "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE 'trawl_%'",
            database: String(fixture.url.split(separator: "/").last!))
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines)
            == "trawl_host,trawl_intake,trawl_job,trawl_migrations,trawl_output,trawl_result,trawl_worker")
    }

    @Test("A queue made by the previous schema (v1) is upgraded with its jobs, which are then worked")
    func fromPrevious() async throws {
        let fixture = try QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        let database = String(fixture.url.split(separator: "/").last!)
        // The previous Trawl: schema v1 only, with a job pushed and one half-way (running,
        // its lease long expired) as that version left them.
        let first = try await fixture.withStore(migrate: false) { store in try await store.migrate(upTo: "v1-jobs") }
        #expect(first == ["v1-jobs"])
        try fixture.cluster.psql("""
            INSERT INTO trawl_host (name, in_flight) VALUES ('a.test', 1);
            INSERT INTO trawl_job (key, input, url, host, state, updated_at) VALUES ('http://a.test/old', 'http://a.test/old', 'http://a.test/old', 'a.test', 'pending', 0);
            INSERT INTO trawl_job (key, input, url, host, state, attempts, lease_owner, lease_until, updated_at)
                VALUES ('http://a.test/half', 'http://a.test/half', 'http://a.test/half', 'a.test', 'running', 1, 'old-worker', 1, 0);
            INSERT INTO trawl_intake (source, lines_read, complete) VALUES ('/old/list.txt', 2, true);
            """, database: database)
        #expect(try fixture.cluster.psql("SELECT to_regclass('trawl_worker') IS NULL", database: database).hasPrefix("t"))

        let (applied, report) = try await fixture.withStore { store in
            let applied = try await store.appliedMigrations()
            let report = try await QueueWorker(store: store, configuration: fixture.configuration()).run()
            try await fixture.writeOutput(store)
            return (applied, report)
        }
        #expect(applied == ["v1-jobs", "v2-workers", "v3-claim-order", "v4-lease-expiries"])
        #expect(report.finished == 2)
        let results = try fixture.results()
        #expect(Set(results.map(\.input)) == ["http://a.test/old", "http://a.test/half"])
        #expect(results.allSatisfy { $0.status == "done" })
        #expect(results.first { $0.input.hasSuffix("/half") }?.attempts == 2, "the expired attempt stays counted")
    }
}
