import PostgresNIO
import TrawlCore
public import TrawlStore

/// How a queue worker claims: the fleet-wide politeness it applies to every host, and its lease.
public struct ClaimRules: Sendable, Hashable {
    /// Requests in flight at once per host, over every worker.
    public var perHost: Int
    /// Seconds between request starts to one host, over every worker (then one job per claim).
    public var delay: Double
    /// The most hosts looked at per claim (fewer when the claim needs fewer).
    public var hosts: Int = 64

    public init(perHost: Int, delay: Double) {
        self.perHost = max(1, perHost)
        self.delay = max(0, delay)
    }
}

/// How one leased attempt ended, for ``QueueStore/finish(_:owner:rules:now:)``.
public struct QueueFinish: Sendable {
    public var jobID: Int64
    /// The attempt number the lease was taken with: a result for an earlier lease is late.
    public var attempt: Int
    public var outcome: JobOutcome
    /// Hold the job's host for every worker until this time (a `Retry-After`).
    public var holdUntil: Double?

    public init(jobID: Int64, attempt: Int, outcome: JobOutcome, holdUntil: Double?) {
        self.jobID = jobID
        self.attempt = attempt
        self.outcome = outcome
        self.holdUntil = holdUntil
    }
}

extension QueueStore {
    /// How many times a job's lease may expire (every worker that took it died or stalled)
    /// before it ends failed with `attempts-exhausted`.
    public static let defaultExpiryLimit = 3

    /// Claims up to `limit` due jobs under `rules` and leases them to `owner` until `leaseUntil`,
    /// in one statement: eligible host rows are locked (`SKIP LOCKED`: another worker's claim
    /// is never waited for), their oldest due jobs taken from the partial index of claimable
    /// jobs (`SKIP LOCKED` again), the jobs marked running and the hosts' in-flight counts,
    /// next allowed start and readiness updated.
    ///
    /// A host whose claim left nothing due gets `ready_at` = its next job's due time (infinity
    /// when none), so later claims skip it; anything that adds work to a host lowers it again.
    /// If such work committed while this claim ran (its `work_seq` moved past this statement's
    /// snapshot), the host stays ready instead.
    public func claim(limit: Int, owner: String, rules: ClaimRules, now: Double, leaseUntil: Double) async throws -> [Job] {
        guard limit > 0 else { return [] }
        let perClaim = rules.delay > 0 ? 1 : rules.perHost
        // Only as many host rows as the claim can use (twice that, for hosts with less due
        // than their room): every row in the slice is locked, and workers claiming at once
        // each take their own slice, so a wide slice costs writes and starves the others.
        let hosts = min(rules.hosts, max(2, 2 * ((limit + perClaim - 1) / perClaim)))
        return try await run("claim jobs") { connection in
            // Prepared once per connection; its commit does not wait for the disk (see ClaimStatement).
            let rows = try await connection.execute(
                ClaimStatement(
                    perHost: Int32(rules.perHost), perClaim: Int32(perClaim), now: now, hosts: Int32(hosts), limit: Int32(limit),
                    owner: owner, leaseUntil: leaseUntil, delay: rules.delay),
                logger: logger)
            var jobs: [Job] = []
            for try await row in rows { jobs.append(Job(leased: row)) }
            return jobs
        }
    }

    /// Jobs a finish's take-over leased to `owner` in a try whose answer was lost: known by what
    /// only that try writes, running under `owner`'s lease until `until`, updated at `at` (a
    /// worker's claims and finishes each read the clock anew). Leased to no running attempt,
    /// they would otherwise wait for their lease to expire. Whether each was pending or waiting
    /// to retry is not kept: a job with an error was retried.
    ///
    /// Read after the repeat's own statement, which waited for the first try's row locks on the
    /// finished jobs: by then that try has committed or rolled back. A claim has no such order
    /// (it skips locked rows and waits for nothing), so a repeated claim cannot tell a first try
    /// that never committed from one that has not yet.
    func leasedByLostTry(
        on connection: PostgresConnection, owner: String, until: Double, at: Double, except known: [Int64] = [], limit: Int
    ) async throws -> [Job] {
        var jobs: [Job] = []
        let rows = try await connection.query(
            """
            SELECT id, key, input, url, host, CASE WHEN last_error IS NULL THEN 'pending' ELSE 'retry-later' END,
                attempts, last_error, due_at, duplicates
            FROM trawl_job
            WHERE lease_owner = \(owner) AND lease_until = \(until) AND updated_at = \(at) AND state = 'running'
                AND id <> ALL(\(known)::int8[])
            ORDER BY id LIMIT \(Int32(limit))
            """, logger: logger)
        for try await row in rows.decode(LeaseSQL.Row.self) { jobs.append(Job(leased: row)) }
        return jobs
    }

    /// Records how leased attempts ended, in one statement (one round trip, one transaction):
    /// each job's state change and its result together, its slot given back to its host (and
    /// a `Retry-After` hold applied for the whole fleet), idle workers notified when a full
    /// host has room, a retry waits or the queue is drained. An attempt whose lease is no
    /// longer `owner`'s (it expired and the job was handed out again) changes nothing: its
    /// late result is discarded. Repeated after a lost connection, a finish whose first try
    /// committed counts what that try wrote as kept.
    /// - Returns: the jobs whose results were discarded.
    @discardableResult
    public func finish(_ finishes: [QueueFinish], owner: String, rules: ClaimRules, now: Double) async throws -> Set<Int64> {
        try await finish(finishes, owner: owner, rules: rules, now: now, takeOver: 0, leaseUntil: now).discarded
    }

    /// What ``finish(_:owner:rules:now:takeOver:leaseUntil:)`` did.
    public struct FinishResult: Sendable {
        /// The jobs whose results were discarded (their lease had expired).
        public var discarded: Set<Int64>
        /// Jobs leased to the worker in the slots the finished ones freed.
        public var next: [Job]
    }

    /// Records how leased attempts ended, as ``finish(_:owner:rules:now:)`` does, and in the
    /// same transaction leases up to `takeOver` due jobs of the same hosts to `owner` until
    /// `leaseUntil`, one per freed slot (none with a per-host delay, nor on a host held for a
    /// `Retry-After`). The slots not taken over go back to their hosts.
    public func finish(
        _ finishes: [QueueFinish], owner: String, rules: ClaimRules, now: Double, takeOver: Int, leaseUntil: Double
    ) async throws -> FinishResult {
        guard !finishes.isEmpty else { return FinishResult(discarded: [], next: []) }
        var statement = FinishStatement(owner: owner, now: now, rules: rules, takeOver: takeOver, leaseUntil: leaseUntil)
        for finish in finishes.sorted(by: { $0.jobID < $1.jobID }) { statement.append(finish) }
        let prepared = statement
        var repeated = false
        var result = try await run("record finished jobs", lostConnection: { repeated = true }) { connection in
            // Prepared once per connection; its commit does not wait for the disk (see FinishStatement).
            var kept: Set<Int64> = []
            var next: [Job] = []
            for try await row in try await connection.execute(prepared, logger: logger) {
                kept.formUnion(row.0)
                // The first row carries the verdicts; the others, the jobs taken over.
                guard let id = row.2, let key = row.3, let input = row.4, let was = row.7, let attempts = row.8, let due = row.10,
                    let duplicates = row.11
                else { continue }
                next.append(Job(leased: (id, key, input, row.5, row.6, was, attempts, row.9, due, duplicates)))
            }
            return FinishResult(discarded: Set(prepared.ids).subtracting(kept), next: next)
        }
        if repeated, !result.discarded.isEmpty {
            // A finish tried again after its connection was lost may have committed the first
            // time (the connection went before the answer): what it wrote then counts as kept,
            // not as late. Each attempt is known by what only its own finish writes, whatever
            // happened to the job since: done or failed, the job's result in this worker's name
            // with the job still at that attempt (a final job is never claimed again; the
            // attempt tells this result from a later lease's of the same worker); a retry, the
            // attempt among the job's `retried_attempts` (it leaves no result row, and the job
            // may have been claimed again since).
            let asked = prepared.ids.indices.filter { result.discarded.contains(prepared.ids[$0]) }
            let ids = asked.map { prepared.ids[$0] }, attempts = asked.map { prepared.attempts[$0] }, states = asked.map { prepared.states[$0] }
            let recorded = try await run("read the outcomes recorded") { connection in
                var recorded: Set<Int64> = []
                let rows = try await connection.query(
                    """
                    SELECT f.id FROM unnest(\(ids)::int8[], \(attempts)::int4[], \(states)::text[]) AS f(id, attempt, state)
                        JOIN trawl_job j ON j.id = f.id
                    WHERE CASE WHEN f.state = 'retry-later' THEN f.attempt = ANY(j.retried_attempts)
                        ELSE j.attempts = f.attempt AND EXISTS (SELECT 1 FROM trawl_result r WHERE r.job_id = f.id AND r.worker = \(owner)) END
                    """, logger: logger)
                for try await id in rows.decode(Int64.self) { recorded.insert(id) }
                return recorded
            }
            result.discarded.subtract(recorded)
        }
        if repeated, takeOver > result.next.count {
            // The first try may also have taken jobs over, and its answer, which named them, is
            // lost: they are the worker's as well.
            let known = result.next.map(\.id) + prepared.ids
            let more = takeOver - result.next.count
            result.next += try await run("read the jobs taken over") { connection in
                try await self.leasedByLostTry(on: connection, owner: owner, until: leaseUntil, at: now, except: known, limit: more)
            }
        }
        return result
    }

    /// Extends the leases `owner` holds on `jobs` to `until`; says the worker is alive. Only
    /// the jobs listed: one the queue shows as `owner`'s that the worker no longer runs (its
    /// finish, committed without waiting for the disk, was lost in a server crash) is left to
    /// expire, and is then worked again.
    public func renew(owner: String, jobs: [Int64], until: Double, now: Double) async throws {
        try await run("renew leases") { connection in
            try await connection.query(
                """
                UPDATE trawl_job SET lease_until = \(until) WHERE state = 'running' AND lease_owner = \(owner) AND id = ANY(\(jobs)::int8[])
                """, logger: logger)
            try await connection.query("UPDATE trawl_worker SET seen_at = \(now) WHERE id = \(owner)", logger: logger)
        }
    }

    /// Returns jobs whose lease expired before `now` (their worker died or stalled) to
    /// `pending`, their hosts' in-flight counts down, and wakes idle workers. Their attempt
    /// stays counted, and so does the expiry: a job whose lease has now expired
    /// `expiryLimit` times (a page that kills every worker that opens it) ends failed with
    /// `attempts-exhausted` instead. A lease given back by ``release(owner:now:expiryLimit:)`` is no
    /// expiry. Returns how many jobs went back or failed.
    @discardableResult
    public func reap(now: Double, expiryLimit: Int = Self.defaultExpiryLimit) async throws -> Int {
        try await run("return expired leases") { connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    SELECT 1 FROM trawl_host WHERE name IN (
                        SELECT host FROM trawl_job WHERE state = 'running' AND lease_until < \(now) AND host IS NOT NULL)
                    ORDER BY name FOR UPDATE
                    """, logger: logger)
                // Jobs at their last expiry get their failed result line now (built here, as
                // every result line is, so it reads like any other).
                var exhausted: [Int64] = [], lines: [String] = []
                let limit = Int32(max(1, expiryLimit))
                let dying = try await connection.query(
                    """
                    SELECT id, input, url, attempts, duplicates FROM trawl_job
                    WHERE state = 'running' AND lease_until < \(now) AND lease_until >= 0 AND lease_expiries + 1 >= \(limit)
                    ORDER BY id FOR UPDATE
                    """, logger: logger)
                for try await (id, input, url, attempts, duplicates) in dying.decode((Int64, String, String?, Int32, Int32).self) {
                    exhausted.append(id)
                    lines.append(
                        BatchResultLine(
                            input: input, url: url, status: "failed",
                            error: .init(
                                code: Self.attemptsExhausted,
                                message: "the lease on \(url ?? input) expired \(limit) times: each worker that took it died or stalled"),
                            attempts: Int(attempts), duplicates: Int(duplicates)
                        ).encoded())
                }
                let rows = try await connection.query(
                    """
                    WITH back AS (
                        UPDATE trawl_job SET state = 'pending', lease_owner = NULL, lease_until = NULL, updated_at = \(now),
                            lease_expiries = lease_expiries + CASE WHEN lease_until >= 0 THEN 1 ELSE 0 END
                        WHERE state = 'running' AND lease_until < \(now) AND id <> ALL(\(exhausted)::bigint[])
                        RETURNING id, host, due_at
                    ), ended AS (
                        UPDATE trawl_job SET state = 'failed', last_error = \(Self.attemptsExhausted), lease_owner = NULL, lease_until = NULL,
                            updated_at = \(now), lease_expiries = lease_expiries + 1
                        WHERE id = ANY(\(exhausted)::bigint[]) AND state = 'running'
                        RETURNING id, host
                    ), results AS (
                        INSERT INTO trawl_result (job_id, line, outcome, host, media_count, error_code, finished_at)
                        SELECT ended.id, e.line, 'failed', ended.host, 0, \(Self.attemptsExhausted), \(now)
                        FROM ended JOIN unnest(\(exhausted)::bigint[], \(lines)::text[]) AS e(id, line) ON e.id = ended.id
                        ON CONFLICT (job_id) DO NOTHING
                    ), per_host AS (
                        SELECT host, COUNT(*) AS n, MIN(due_at) AS due FROM (
                            SELECT host, due_at FROM back UNION ALL SELECT host, 'Infinity'::float8 FROM ended
                        ) gone WHERE host IS NOT NULL GROUP BY host
                    ), hosts AS (
                        UPDATE trawl_host t SET in_flight = GREATEST(0, t.in_flight - p.n), ready_at = LEAST(t.ready_at, p.due),
                            work_seq = t.work_seq + 1
                        FROM per_host p WHERE t.name = p.host
                    )
                    SELECT (SELECT COUNT(*) FROM back) + (SELECT COUNT(*) FROM ended)
                    """, logger: logger)
                var count = 0
                for try await n in rows.decode(Int64.self) { count = Int(n) }
                if count > 0 { try await connection.query("SELECT pg_notify(\(Self.workChannel), '')", logger: logger) }
                return count
            }
        }
    }

    /// The error code of a job whose leases expired too often.
    public static let attemptsExhausted = "attempts-exhausted"

    /// Returns every job `owner` still holds to the queue (the worker is stopping).
    public func release(owner: String, now: Double, expiryLimit: Int = Self.defaultExpiryLimit) async throws {
        // -1 marks a lease given back, not expired: the reaper does not count it.
        try await run("return the worker's jobs") { connection in
            try await connection.query("UPDATE trawl_job SET lease_until = -1 WHERE state = 'running' AND lease_owner = \(owner)", logger: logger)
        }
        try await reap(now: now, expiryLimit: expiryLimit)
    }

    /// When an idle worker should look again without being notified: the earliest time a host
    /// with room has due work and may start, or a lease expires. `nil`: nothing to wait for.
    public func nextWake(rules: ClaimRules) async throws -> Double? {
        try await run("read the next wake-up") { connection in
            let rows = try await connection.query(
                """
                SELECT LEAST(
                    (SELECT MIN(GREATEST(h.ready_at, h.next_allowed)) FROM trawl_host h
                     WHERE h.ready_at < 'Infinity'
                         AND h.in_flight - COALESCE((SELECT SUM(r.n) FROM trawl_host_returned r WHERE r.host = h.name), 0) < \(Int32(rules.perHost))),
                    (SELECT MIN(lease_until) FROM trawl_job WHERE state = 'running'))
                """, logger: logger)
            for try await at in rows.decode(Double?.self) { return at }
            return nil
        }
    }

    /// Wakes every idle worker (they look at the queue again).
    public func wakeWorkers() async throws {
        try await run("notify the workers") { connection in
            try await connection.query("SELECT pg_notify(\(Self.workChannel), '')", logger: logger)
        }
    }

    /// Whether the queue has work left: jobs not final, or a URL list not read to its end.
    ///
    /// The jobs are looked up as the first entry of the partial indexes of claimable and running
    /// jobs, in their order: written as `EXISTS`, the planner (whose statistics date from the
    /// push, when nearly every job was pending) expected a match in the first rows and scanned
    /// the whole table, every version of every job, just as the queue ran dry and every worker
    /// asked (0.1 s a call over 100 000 jobs).
    public func hasUnfinishedWork() async throws -> Bool {
        try await run("read whether work is left") { connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: Self.unfinishedWorkSQL), logger: logger)
            for try await left in rows.decode(Bool.self) { return left }
            return false
        }
    }

    /// The statement of ``hasUnfinishedWork()``.
    static let unfinishedWorkSQL = """
        SELECT (SELECT 1 FROM trawl_job WHERE state IN ('pending', 'retry-later') ORDER BY host, due_at, id LIMIT 1) IS NOT NULL
            OR (SELECT 1 FROM trawl_job WHERE state = 'running' ORDER BY lease_until LIMIT 1) IS NOT NULL
            OR EXISTS (SELECT 1 FROM trawl_intake WHERE NOT complete)
        """

    /// Records a worker joining (or rejoining) the queue.
    public func register(worker: String, machine: String, pid: Int, concurrency: Int, now: Double) async throws {
        try await run("register the worker") { connection in
            try await connection.query(
                """
                INSERT INTO trawl_worker (id, machine, pid, concurrency, started_at, seen_at) VALUES
                    (\(worker), \(machine), \(Int32(pid)), \(Int32(concurrency)), \(now), \(now))
                ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at, stopped_at = NULL
                """, logger: logger)
        }
    }

    /// Records a worker leaving cleanly.
    public func deregister(worker: String, now: Double) async throws {
        try await run("record the worker's stop") { connection in
            try await connection.query("UPDATE trawl_worker SET stopped_at = \(now), seen_at = \(now) WHERE id = \(worker)", logger: logger)
        }
    }
}
