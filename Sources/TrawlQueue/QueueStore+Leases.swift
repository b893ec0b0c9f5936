import PostgresNIO
import TrawlStore

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
        return try await run("claim jobs") {
            // Prepared once per connection; its commit does not wait for the disk (see ClaimStatement).
            let rows = try await client.execute(
                ClaimStatement(
                    perHost: Int32(rules.perHost), perClaim: Int32(perClaim), now: now, hosts: Int32(hosts), limit: Int32(limit),
                    owner: owner, leaseUntil: leaseUntil, delay: rules.delay),
                logger: logger)
            var jobs: [Job] = []
            for try await (id, key, input, url, host, was, attempts, lastError, due, duplicates) in rows {
                jobs.append(Job(
                    id: id, key: key, input: input, url: url, host: host, state: JobState(rawValue: was) ?? .pending,
                    attempts: Int(attempts), lastError: lastError, nextAttemptAt: due, duplicates: Int(duplicates)))
            }
            return jobs
        }
    }

    /// Records how leased attempts ended, in one transaction: each job's state change and its
    /// result together, its host's in-flight count down (and a `Retry-After` hold applied for
    /// the whole fleet). An attempt whose lease is no longer `owner`'s (it expired and the job
    /// was handed out again) changes nothing: its late result is discarded.
    /// - Returns: the jobs whose results were discarded.
    @discardableResult
    public func finish(_ finishes: [QueueFinish], owner: String, rules: ClaimRules, now: Double) async throws -> Set<Int64> {
        guard !finishes.isEmpty else { return [] }
        let sorted = finishes.sorted { $0.jobID < $1.jobID }
        var ids: [Int64] = [], attempts: [Int32] = [], states: [String] = [], lines: [String] = [], errors: [String] = []
        var dues: [Double] = [], statuses: [Int32] = [], media: [Int32] = [], latencies: [Int32] = [], holds: [Double] = []
        for finish in sorted {
            ids.append(finish.jobID)
            attempts.append(Int32(finish.attempt))
            holds.append(finish.holdUntil ?? 0)
            switch finish.outcome {
            case .done(let result), .failed(let result):
                if case .done = finish.outcome { states.append("done") } else { states.append("failed") }
                lines.append(result.line)
                errors.append(result.errorCode ?? "")
                dues.append(0)
                statuses.append(Int32(result.httpStatus ?? -1))
                media.append(Int32(result.mediaCount))
                latencies.append(Int32(result.latencyMilliseconds ?? -1))
            case .retryLater(let at, let error):
                states.append("retry-later")
                lines.append("")
                errors.append(error)
                dues.append(at)
                statuses.append(-1)
                media.append(0)
                latencies.append(-1)
            }
        }
        return try await run("record finished jobs") {
            try await client.withTransaction(logger: logger) { connection in
                // Host rows first, in name order, as every writer takes them: no deadlocks.
                try await connection.query("""
                    SELECT 1 FROM trawl_host WHERE name IN (SELECT host FROM trawl_job WHERE id = ANY(\(ids)::bigint[]))
                    ORDER BY name FOR UPDATE
                    """, logger: logger)
                let rows = try await connection.query("""
                    WITH f AS (
                        SELECT * FROM unnest(\(ids)::bigint[], \(attempts)::int[], \(states)::text[], \(lines)::text[], \(errors)::text[],
                                             \(dues)::float8[], \(statuses)::int[], \(media)::int[], \(latencies)::int[], \(holds)::float8[])
                            AS f(id, attempt, state, line, error, due, http, media, latency, hold)
                    ), kept AS (
                        UPDATE trawl_job j SET state = f.state, last_error = NULLIF(f.error, ''),
                            due_at = CASE WHEN f.state = 'retry-later' THEN f.due ELSE j.due_at END,
                            lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                        FROM f WHERE j.id = f.id AND j.state = 'running' AND j.lease_owner = \(owner) AND j.attempts = f.attempt
                        RETURNING j.id, j.host
                    ), results AS (
                        INSERT INTO trawl_result (job_id, line, outcome, host, http_status, media_count, latency_ms, error_code, finished_at, worker)
                        SELECT f.id, f.line, f.state, kept.host, NULLIF(f.http, -1), f.media, NULLIF(f.latency, -1), NULLIF(f.error, ''), \(now), \(owner)
                        FROM f JOIN kept ON kept.id = f.id WHERE f.state IN ('done', 'failed')
                        ON CONFLICT (job_id) DO NOTHING
                    ), per_host AS (
                        SELECT kept.host, COUNT(*) AS n, MAX(f.hold) AS hold, MIN(f.due) FILTER (WHERE f.state = 'retry-later') AS retry
                        FROM kept JOIN f ON f.id = kept.id WHERE kept.host IS NOT NULL GROUP BY kept.host
                    ), hosts AS (
                        UPDATE trawl_host t SET in_flight = GREATEST(0, t.in_flight - p.n),
                            next_allowed = GREATEST(t.next_allowed, p.hold),
                            ready_at = CASE WHEN p.retry IS NULL THEN t.ready_at ELSE LEAST(t.ready_at, p.retry) END,
                            work_seq = t.work_seq + CASE WHEN p.retry IS NULL THEN 0 ELSE 1 END
                        FROM per_host p WHERE t.name = p.host
                        RETURNING t.in_flight + p.n AS before
                    ), worker AS (
                        UPDATE trawl_worker SET finished = finished + (SELECT COUNT(*) FROM kept k JOIN f ON f.id = k.id WHERE f.state <> 'retry-later'),
                            seen_at = \(now)
                        WHERE id = \(owner)
                    )
                    SELECT COALESCE(array_agg(kept.id), '{}'),
                           (SELECT COUNT(*) FROM hosts WHERE before >= \(Int32(rules.perHost))),
                           (SELECT COUNT(*) FROM per_host WHERE retry IS NOT NULL),
                           NOT EXISTS (SELECT 1 FROM trawl_job WHERE state IN ('pending', 'retry-later'))
                               AND NOT EXISTS (SELECT 1 FROM trawl_job WHERE state = 'running' AND id <> ALL(\(ids)::bigint[]))
                    FROM kept
                    """, logger: logger)
                var kept: Set<Int64> = []
                var wake = false
                for try await (keptIDs, freed, retries, drained) in rows.decode(([Int64], Int64, Int64, Bool).self) {
                    kept = Set(keptIDs)
                    wake = freed > 0 || retries > 0 || drained
                }
                // A host that was full has room again, or a job waits to retry: idle workers may
                // claim. Or this was the last work: workers told to exit when it is done may go.
                if wake { try await connection.query("SELECT pg_notify(\(Self.workChannel), '')", logger: logger) }
                return Set(ids).subtracting(kept)
            }
        }
    }

    /// Extends the leases `owner` holds to `until`; says the worker is alive.
    public func renew(owner: String, until: Double, now: Double) async throws {
        try await run("renew leases") {
            try await client.query("UPDATE trawl_job SET lease_until = \(until) WHERE state = 'running' AND lease_owner = \(owner)", logger: logger)
            try await client.query("UPDATE trawl_worker SET seen_at = \(now) WHERE id = \(owner)", logger: logger)
        }
    }

    /// Returns jobs whose lease expired before `now` (their worker died or stalled) to
    /// `pending`, their hosts' in-flight counts down, and wakes idle workers. Their attempt
    /// stays counted. Returns how many.
    @discardableResult
    public func reap(now: Double) async throws -> Int {
        try await run("return expired leases") {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("""
                    SELECT 1 FROM trawl_host WHERE name IN (
                        SELECT host FROM trawl_job WHERE state = 'running' AND lease_until < \(now) AND host IS NOT NULL)
                    ORDER BY name FOR UPDATE
                    """, logger: logger)
                let rows = try await connection.query("""
                    WITH back AS (
                        UPDATE trawl_job SET state = 'pending', lease_owner = NULL, lease_until = NULL, updated_at = \(now)
                        WHERE state = 'running' AND lease_until < \(now)
                        RETURNING id, host, due_at
                    ), per_host AS (
                        SELECT host, COUNT(*) AS n, MIN(due_at) AS due FROM back WHERE host IS NOT NULL GROUP BY host
                    ), hosts AS (
                        UPDATE trawl_host t SET in_flight = GREATEST(0, t.in_flight - p.n), ready_at = LEAST(t.ready_at, p.due),
                            work_seq = t.work_seq + 1
                        FROM per_host p WHERE t.name = p.host
                    )
                    SELECT COUNT(*) FROM back
                    """, logger: logger)
                var count = 0
                for try await n in rows.decode(Int64.self) { count = Int(n) }
                if count > 0 { try await connection.query("SELECT pg_notify(\(Self.workChannel), '')", logger: logger) }
                return count
            }
        }
    }

    /// Returns every job `owner` still holds to the queue (the worker is stopping).
    public func release(owner: String, now: Double) async throws {
        try await run("return the worker's jobs") {
            try await client.query("UPDATE trawl_job SET lease_until = -1 WHERE state = 'running' AND lease_owner = \(owner)", logger: logger)
        }
        try await reap(now: now)
    }

    /// When an idle worker should look again without being notified: the earliest time a host
    /// with room has due work and may start, or a lease expires. `nil`: nothing to wait for.
    public func nextWake(rules: ClaimRules) async throws -> Double? {
        try await run("read the next wake-up") {
            let rows = try await client.query("""
                SELECT LEAST(
                    (SELECT MIN(GREATEST(ready_at, next_allowed)) FROM trawl_host WHERE ready_at < 'Infinity' AND in_flight < \(Int32(rules.perHost))),
                    (SELECT MIN(lease_until) FROM trawl_job WHERE state = 'running'))
                """, logger: logger)
            for try await at in rows.decode(Double?.self) { return at }
            return nil
        }
    }

    /// Whether the queue has work left: jobs not final, or a URL list not read to its end.
    public func hasUnfinishedWork() async throws -> Bool {
        try await run("read whether work is left") {
            let rows = try await client.query("""
                SELECT EXISTS (SELECT 1 FROM trawl_job WHERE state IN ('pending', 'retry-later'))
                    OR EXISTS (SELECT 1 FROM trawl_job WHERE state = 'running')
                    OR EXISTS (SELECT 1 FROM trawl_intake WHERE NOT complete)
                """, logger: logger)
            for try await left in rows.decode(Bool.self) { return left }
            return false
        }
    }

    /// Records a worker joining (or rejoining) the queue.
    public func register(worker: String, machine: String, pid: Int, concurrency: Int, now: Double) async throws {
        try await run("register the worker") {
            try await client.query("""
                INSERT INTO trawl_worker (id, machine, pid, concurrency, started_at, seen_at) VALUES
                    (\(worker), \(machine), \(Int32(pid)), \(Int32(concurrency)), \(now), \(now))
                ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at, stopped_at = NULL
                """, logger: logger)
        }
    }

    /// Records a worker leaving cleanly.
    public func deregister(worker: String, now: Double) async throws {
        try await run("record the worker's stop") {
            try await client.query("UPDATE trawl_worker SET stopped_at = \(now), seen_at = \(now) WHERE id = \(worker)", logger: logger)
        }
    }
}
