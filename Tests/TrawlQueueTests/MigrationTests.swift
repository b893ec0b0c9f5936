import Foundation
import Testing
import TrawlBatch
import TrawlQueue
import TrawlQueueWorker
import TrawlStore
import TrawlTesting

@Suite("Queue schema migrations", .timeLimit(.minutes(5)), .tags(.postgres))
struct MigrationTests {
    @Test("An empty database gets every migration, once")
    func fromEmpty() async throws {
        let fixture = try await QueueFixture(hosts: []) { _ in .status(404) }
        defer { fixture.server.shutdown() }
        let applied = try await fixture.withStore { store in try await store.appliedMigrations() }
        #expect(
            applied == [
                "v1-jobs", "v2-workers", "v3-claim-order", "v4-lease-expiries", "v5-fewer-writes", "v6-no-result-key-check", "v7-job-keys",
                "v8-retried-attempts",
            ])
        // Connecting again applies nothing.
        let again = try await fixture.withStore { store in try await store.migrate() }
        #expect(again.isEmpty)
        let tables = try await fixture.cluster.psql(
            "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE 'trawl_%'",
            database: String(fixture.url.split(separator: "/").last!))
        #expect(
            tables.trimmingCharacters(in: .whitespacesAndNewlines)
                == "trawl_host,trawl_host_returned,trawl_intake,trawl_job,trawl_job_key,trawl_migrations,trawl_output,trawl_result,trawl_worker")
    }

    @Test("A queue made by the previous schema (v1) is upgraded with its jobs, which are then worked")
    func fromPrevious() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        let database = String(fixture.url.split(separator: "/").last!)
        // The previous Trawl: schema v1 only, with a job pushed and one half-way (running,
        // its lease long expired) as that version left them.
        let first = try await fixture.withStore(migrate: false) { store in try await store.migrate(upTo: "v1-jobs") }
        #expect(first == ["v1-jobs"])
        try await fixture.cluster.psql(
            """
            INSERT INTO trawl_host (name, in_flight) VALUES ('a.test', 1);
            INSERT INTO trawl_job (key, input, url, host, state, updated_at) VALUES ('http://a.test/old', 'http://a.test/old', 'http://a.test/old', 'a.test', 'pending', 0);
            INSERT INTO trawl_job (key, input, url, host, state, attempts, lease_owner, lease_until, updated_at)
                VALUES ('http://a.test/half', 'http://a.test/half', 'http://a.test/half', 'a.test', 'running', 1, 'old-worker', 1, 0);
            INSERT INTO trawl_intake (source, lines_read, complete) VALUES ('/old/list.txt', 2, true);
            """, database: database)
        #expect(try await fixture.cluster.psql("SELECT to_regclass('trawl_worker') IS NULL", database: database).hasPrefix("t"))

        let (applied, report) = try await fixture.withStore { store in
            let applied = try await store.appliedMigrations()
            let report = try await QueueWorker(store: store, configuration: fixture.configuration()).run()
            try await fixture.writeOutput(store)
            return (applied, report)
        }
        #expect(
            applied == [
                "v1-jobs", "v2-workers", "v3-claim-order", "v4-lease-expiries", "v5-fewer-writes", "v6-no-result-key-check", "v7-job-keys",
                "v8-retried-attempts",
            ])
        #expect(report.finished == 2)
        let results = try fixture.results()
        #expect(Set(results.map(\.input)) == ["http://a.test/old", "http://a.test/half"])
        #expect(results.allSatisfy { $0.status == "done" })
        #expect(results.first { $0.input.hasSuffix("/half") }?.attempts == 2, "the expired attempt stays counted")
    }

    @Test("A queue made by v4 is upgraded to v5 and v6: its output continues after the results already written, and its leases are renewed")
    func fromV4() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        let database = String(fixture.url.split(separator: "/").last!)
        // v4 as it ran: a job whose result is already numbered and written out, one pending,
        // one running under a worker that died (lease long expired).
        let first = try await fixture.withStore(migrate: false) { store in try await store.migrate(upTo: "v4-lease-expiries") }
        #expect(first == ["v1-jobs", "v2-workers", "v3-claim-order", "v4-lease-expiries"])
        try await fixture.cluster.psql(Self.pushedBefore(["http://a.test/written", "http://a.test/old", "http://a.test/half"]), database: database)
        try await fixture.cluster.psql(
            """
            UPDATE trawl_job SET state = 'done' WHERE key = 'http://a.test/written';
            INSERT INTO trawl_result (job_id, out_seq, line, outcome, host, finished_at)
                SELECT id, nextval('trawl_result_out_seq'), '{"input":"http://a.test/written","status":"done","attempts":1}', 'done', 'a.test', 0
                FROM trawl_job WHERE key = 'http://a.test/written';
            UPDATE trawl_job SET state = 'running', attempts = 1, lease_owner = 'old-worker', lease_until = 1 WHERE key = 'http://a.test/half';
            UPDATE trawl_host SET in_flight = 1 WHERE name = 'a.test';
            """, database: database)
        try await fixture.withStore(migrate: false) { store in try await fixture.writeOutput(store) }
        #expect(try fixture.results().map(\.input) == ["http://a.test/written"])

        let (applied, report) = try await fixture.withStore { store in
            let applied = try await store.appliedMigrations()
            let report = try await QueueWorker(store: store, configuration: fixture.configuration()).run()
            try await fixture.writeOutput(store)
            return (applied, report)
        }
        #expect(applied.suffix(4) == ["v5-fewer-writes", "v6-no-result-key-check", "v7-job-keys", "v8-retried-attempts"])
        #expect(report.finished == 2)
        let results = try fixture.results()
        #expect(results.map(\.input).sorted() == ["http://a.test/half", "http://a.test/old", "http://a.test/written"])
        #expect(results.first?.input == "http://a.test/written", "the result written before the upgrade keeps its place")
        let indexes = try await fixture.cluster.psql(
            "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename IN ('trawl_job', 'trawl_result')", database: database)
        #expect(!indexes.contains("trawl_job_owner"))
        #expect(!indexes.contains("trawl_result_out_seq_key"))
        #expect(indexes.contains("trawl_result_numbered"))
        #expect(
            try await fixture.cluster.psql("SELECT reloptions::text FROM pg_class WHERE relname = 'trawl_host'", database: database).contains("fillfactor=50"))
        #expect(
            try await fixture.cluster.psql(
                "SELECT COUNT(*) FROM pg_constraint WHERE conrelid = 'trawl_result'::regclass AND contype = 'f'", database: database
            ).hasPrefix("0"), "v6: no foreign key checked per result")
    }

    @Test("A queue made by v6 is upgraded to v7: its keys move to their own table, and a URL pushed again is a duplicate, not a second job")
    func fromV6() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        let database = fixture.database
        let first = try await fixture.withStore(migrate: false) { store in try await store.migrate(upTo: "v6-no-result-key-check") }
        #expect(first.last == "v6-no-result-key-check")
        try await fixture.cluster.psql(Self.pushedBefore(["http://a.test/one", "http://a.test/two"]), database: database)

        // After the upgrade, a second list repeats one URL and adds one.
        let second = fixture.folder.appendingPathComponent("more.txt")
        try Data("http://a.test/one\nhttp://a.test/three\n".utf8).write(to: second)
        let (applied, report) = try await fixture.withStore { store in
            let applied = try await store.appliedMigrations()
            let intake = try await Intake(path: second.path, store: store, configuration: fixture.configuration().batch)
            while try await !intake.next().finished {}
            let report = try await QueueWorker(store: store, configuration: fixture.configuration()).run()
            try await fixture.writeOutput(store)
            return (applied, report)
        }
        #expect(applied.suffix(2) == ["v7-job-keys", "v8-retried-attempts"])
        #expect(report.finished == 3)
        #expect(try await fixture.cluster.psql("SELECT COUNT(*) FROM trawl_job", database: database).hasPrefix("3"))
        #expect(
            try await fixture.cluster.psql("SELECT COUNT(*) FROM trawl_job_key k JOIN trawl_job j ON j.id = k.job_id AND j.key = k.key", database: database)
                .hasPrefix("3"))
        let results = try fixture.results()
        #expect(results.map(\.input).sorted() == ["http://a.test/one", "http://a.test/three", "http://a.test/two"])
        #expect(results.first { $0.input.hasSuffix("/one") }?.duplicates == 1)
        #expect(
            try await fixture.cluster.psql(
                "SELECT COUNT(*) FROM pg_constraint WHERE conrelid = 'trawl_job'::regclass AND contype = 'u'", database: database
            ).hasPrefix("0"), "v7: no key index on the job rows")
    }

    /// The SQL with which a Trawl before v7 pushed a list of URLs on host `a.test` (keys unique
    /// in the job table).
    static func pushedBefore(_ urls: [String]) -> String {
        """
        INSERT INTO trawl_host (name, ready_at) VALUES ('a.test', 0);
        INSERT INTO trawl_job (key, input, url, host, state, updated_at)
            SELECT u, u, u, 'a.test', 'pending', 0 FROM unnest(ARRAY['\(urls.joined(separator: "','"))']) WITH ORDINALITY AS t(u, n) ORDER BY n;
        INSERT INTO trawl_intake (source, lines_read, complete) VALUES ('/old/list.txt', \(urls.count), true);
        """
    }
}
