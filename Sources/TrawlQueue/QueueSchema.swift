import Logging
import PostgresNIO

/// The queue's tables, created and upgraded by named migrations: each runs once, in order, and
/// is recorded in `trawl_migrations`; a queue made by an older Trawl is brought up to date when
/// a newer one connects. Workers starting together take an advisory lock, so one migrates and
/// the others find it done.
enum QueueSchema {
    struct Migration: Sendable {
        var name: String
        var statements: [String]
    }

    /// Every migration, oldest first. Never edit one that shipped: add the next.
    static let migrations: [Migration] = [
        Migration(
            name: "v1-jobs",
            statements: [
                """
                CREATE TABLE trawl_job (
                    id BIGSERIAL PRIMARY KEY,
                    key TEXT NOT NULL UNIQUE,
                    input TEXT NOT NULL,
                    url TEXT,
                    host TEXT,
                    state TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    due_at DOUBLE PRECISION NOT NULL DEFAULT 0,
                    duplicates INTEGER NOT NULL DEFAULT 0,
                    lease_owner TEXT,
                    lease_until DOUBLE PRECISION,
                    updated_at DOUBLE PRECISION NOT NULL
                )
                """,
                // Claims look only at jobs that can be claimed, per host, oldest due first.
                "CREATE INDEX trawl_job_claimable ON trawl_job (host, due_at, id) WHERE state IN ('pending', 'retry-later')",
                // One row per host: the fleet's politeness (requests in flight, the next allowed
                // start) and whether it has work (`ready_at`: when its earliest job falls due).
                """
                CREATE TABLE trawl_host (
                    name TEXT PRIMARY KEY,
                    in_flight INTEGER NOT NULL DEFAULT 0,
                    next_allowed DOUBLE PRECISION NOT NULL DEFAULT 0,
                    ready_at DOUBLE PRECISION NOT NULL DEFAULT 0,
                    claimed_at DOUBLE PRECISION NOT NULL DEFAULT 0,
                    work_seq BIGINT NOT NULL DEFAULT 0
                )
                """,
                // Final answers. `out_seq` numbers them in the order the output writer first saw
                // them committed, so a watermark says how much of an output file exists.
                """
                CREATE TABLE trawl_result (
                    job_id BIGINT PRIMARY KEY REFERENCES trawl_job (id),
                    out_seq BIGINT UNIQUE,
                    line TEXT NOT NULL,
                    outcome TEXT NOT NULL,
                    host TEXT,
                    http_status INTEGER,
                    media_count INTEGER NOT NULL DEFAULT 0,
                    latency_ms INTEGER,
                    error_code TEXT,
                    finished_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX trawl_result_unnumbered ON trawl_result (job_id) WHERE out_seq IS NULL",
                "CREATE SEQUENCE trawl_result_out_seq",
                "CREATE TABLE trawl_intake (source TEXT PRIMARY KEY, lines_read BIGINT NOT NULL, complete BOOLEAN NOT NULL DEFAULT FALSE)",
                "CREATE TABLE trawl_output (path TEXT PRIMARY KEY, seq BIGINT NOT NULL, bytes BIGINT NOT NULL)",
            ]),
        Migration(
            name: "v2-workers",
            statements: [
                // Who works the queue: `trawl queue status` shows each worker's share.
                """
                CREATE TABLE trawl_worker (
                    id TEXT PRIMARY KEY,
                    machine TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    concurrency INTEGER NOT NULL,
                    started_at DOUBLE PRECISION NOT NULL,
                    seen_at DOUBLE PRECISION NOT NULL,
                    stopped_at DOUBLE PRECISION,
                    finished BIGINT NOT NULL DEFAULT 0
                )
                """,
                "ALTER TABLE trawl_result ADD COLUMN worker TEXT",
                // Lease renewal (by owner) and the reaper (by expiry) look only at running jobs.
                "CREATE INDEX trawl_job_leased ON trawl_job (lease_until) WHERE state = 'running'",
                "CREATE INDEX trawl_job_owner ON trawl_job (lease_owner) WHERE state = 'running'",
            ]),
        Migration(
            name: "v3-claim-order",
            statements: [
                // A claim takes the hosts claimed longest ago first: walking this index stops at
                // the few rows it needs, where a scan read and sorted every host row (and their
                // dead versions, which frequent claims leave behind) on every claim.
                "CREATE INDEX trawl_host_claim_order ON trawl_host (claimed_at, name)"
            ]),
        Migration(
            name: "v4-lease-expiries",
            statements: [
                // Leases of a job that ran out (its worker died or stalled): a page that kills
                // every worker that opens it ends failed after a few, instead of looping forever.
                "ALTER TABLE trawl_job ADD COLUMN lease_expiries INTEGER NOT NULL DEFAULT 0"
            ]),
        Migration(
            name: "v5-fewer-writes",
            statements: [
                // Every index entry is written again for each new row version, and a job gets
                // three per attempt (claim, finish, its result). Renewal and `trawl queue status`
                // find a worker's leases among the running jobs through `trawl_job_leased` (only
                // running jobs: at most the fleet's slots), so the owner index goes.
                "DROP INDEX IF EXISTS trawl_job_owner",
                // A result's output number is written once, by the output writer: an index of the
                // numbered results only, not a unique constraint that also indexes every NULL at
                // insert. Numbers come from one sequence, under the writer's lock: unique anyway.
                "ALTER TABLE trawl_result DROP CONSTRAINT IF EXISTS trawl_result_out_seq_key",
                "CREATE INDEX trawl_result_numbered ON trawl_result (out_seq) WHERE out_seq IS NOT NULL",
                // Host rows are rewritten by every claim and finish: room on their pages lets a
                // finish's update (no indexed column changes) stay on the page (HOT), writing no
                // index entry.
                "ALTER TABLE trawl_host SET (fillfactor = 50)",
                // A finish gives its jobs' slots back here, in its worker's own row per host,
                // instead of in the host row: finishes commit durably, and a host row locked until
                // the disk has flushed held up every other finish and claim on that host (one
                // host, many workers: all of them). A host's requests in flight are its
                // `in_flight` less these rows; claims fold them into `in_flight`.
                """
                CREATE TABLE trawl_host_returned (
                    host TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    n INTEGER NOT NULL,
                    PRIMARY KEY (host, owner)
                )
                """,
            ]),
        Migration(
            name: "v6-no-result-key-check",
            statements: [
                // The reference from a result to its job was checked by a trigger that read and
                // locked the job row again (a WAL record) for every result, inside the very
                // statement that had just updated that row: a seventh of a finish's time. Results
                // are only written by the finish and the reaper, for jobs they have just changed.
                "ALTER TABLE trawl_result DROP CONSTRAINT IF EXISTS trawl_result_job_id_fkey"
            ]),
        Migration(
            name: "v7-job-keys",
            statements: [
                // A job's key is unique, but a job row gets a new version at its claim and at its
                // finish (a state change is never a HOT update: `state` is in the partial indexes'
                // conditions), and each version wrote an entry in the key's index too: two text
                // index entries per job, on the statement that is most of the queue's work. The
                // keys live in a table of their own, written once at intake; the job keeps its key
                // as a plain column (claims return it).
                "CREATE TABLE trawl_job_key (key TEXT PRIMARY KEY, job_id BIGINT NOT NULL)",
                "INSERT INTO trawl_job_key (key, job_id) SELECT key, id FROM trawl_job",
                "ALTER TABLE trawl_job DROP CONSTRAINT IF EXISTS trawl_job_key_key",
            ]),
        Migration(
            name: "v8-retried-attempts",
            statements: [
                // The attempts of a job that a finish sent back to wait (a retry later), written
                // with that change. A finish repeated after its answer was lost knows by them that
                // its first try committed such an outcome: unlike a done or failed one, it leaves no
                // result row, and the job may already have been claimed again. Empty for most jobs
                // (NULL: no storage, no rewrite of the table).
                "ALTER TABLE trawl_job ADD COLUMN retried_attempts INTEGER[]"
            ]),
    ]

    /// The advisory lock migrations run under (any fixed number; this one spells "trawlq").
    static let migrationLock: Int64 = 0x74_72_61_77_6C_71

    /// Applies the migrations not yet applied, up to and including `last` (all by default), in
    /// one transaction. Returns the names applied now.
    @discardableResult
    static func migrate(_ client: PostgresClient, upTo last: String? = nil, logger: Logger) async throws -> [String] {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS trawl_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                logger: logger)
            var applied: Set<String> = []
            for try await name in try await connection.query("SELECT name FROM trawl_migrations", logger: logger).decode(String.self) {
                applied.insert(name)
            }
            var now: [String] = []
            for migration in migrations {
                if !applied.contains(migration.name) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO trawl_migrations (name) VALUES (\(migration.name))", logger: logger)
                    now.append(migration.name)
                }
                if migration.name == last { break }
            }
            return now
        }
    }
}
