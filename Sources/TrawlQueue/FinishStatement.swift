import PostgresNIO
import TrawlStore

/// The finish of ``QueueStore/finish(_:owner:rules:now:)`` as one prepared statement: a group
/// of finished attempts (one array per column) recorded in a single round trip, where it took
/// five (`BEGIN`, the host-row lock, the update, the notification, `COMMIT`).
///
/// Run alone, the statement is its own transaction. It also takes over the freed slots: up to
/// `takeOver` due jobs of the finished jobs' hosts, one per freed slot, are leased to the same
/// worker in the same transaction. A slot handed from a finished job to the next changes no
/// host count, so a worker that keeps a busy host's slots touches neither the host row nor a
/// second transaction per group (a separate claim, and the notification that woke every
/// worker to make it). Not with a per-host delay (each start must move the host's next
/// allowed time) nor on a host this group holds for a `Retry-After`. Slots not taken over go
/// back in the worker's own `trawl_host_returned` rows, not in the host rows, so finishes on
/// one host never wait for each other. Host rows a `Retry-After` hold or a retry changes are
/// locked first, in name order, as every writer takes them (no deadlocks): `locked` is read
/// whole by a scalar subquery of the job update's condition, which PostgreSQL evaluates once
/// before the update writes anything. Only jobs still running under `owner`'s lease with the
/// same attempt are changed; a late result (its lease expired, the job handed out again)
/// matches no row and is discarded.
///
/// The commit does not wait for the disk (`synchronous_commit` off for this transaction, as
/// for claims): a flush per group was most of a finish's cost. What a server crash can lose
/// is the last moment's finishes, and losing them costs work, never an output line: their
/// jobs come back as this worker's running jobs (or pending, if their claim went too), which
/// it no longer renews (``WorkerLeases``), so their leases expire and they are worked again.
/// The output never holds a lost result: the output mark is written with a waiting commit,
/// whose flush carries every result committed before it, and the file is cut back to the
/// mark after a crash.
struct FinishStatement: PostgresPreparedStatement {
    static let sql = """
        WITH f AS (
            SELECT f.* FROM unnest($1::int8[], $2::int4[], $3::text[], $4::text[], $5::text[],
                                   $6::float8[], $7::int4[], $8::int4[], $9::int4[], $10::float8[])
                AS f(id, attempt, state, line, error, due, http, media, latency, hold),
                (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
        ), locked AS (
            -- Only the hosts a Retry-After hold or a retry changes.
            SELECT t.name FROM trawl_host t
            WHERE t.name IN (SELECT host FROM trawl_job WHERE id IN (SELECT id FROM f WHERE f.hold > 0 OR f.state = 'retry-later'))
            ORDER BY t.name
            FOR UPDATE OF t
        ), kept AS (
            UPDATE trawl_job j SET state = f.state, last_error = NULLIF(f.error, ''),
                due_at = CASE WHEN f.state = 'retry-later' THEN f.due ELSE j.due_at END,
                -- A retry leaves no result row: the attempt is recorded, for a repeated finish to
                -- recognise (see `QueueStore.finish`).
                retried_attempts = CASE WHEN f.state = 'retry-later' THEN array_append(j.retried_attempts, f.attempt) ELSE j.retried_attempts END,
                lease_owner = NULL, lease_until = NULL, updated_at = $12::float8
            -- Still `owner`'s lease, same attempt: a job has a lease owner exactly while it runs
            -- (only a claim sets one, every way out of `running` clears it), so `state` is not
            -- named here. Named, it let the planner read every entry of `trawl_job_leased` (all
            -- running jobs, and versions not yet vacuumed) instead of the jobs by primary key.
            FROM f WHERE j.id = ANY($1::int8[]) AND j.id = f.id AND j.lease_owner = $11::text AND j.attempts = f.attempt
                AND (SELECT COUNT(*) FROM locked) >= 0
            RETURNING j.id, j.host
        ), results AS (
            INSERT INTO trawl_result (job_id, line, outcome, host, http_status, media_count, latency_ms, error_code, finished_at, worker)
            SELECT f.id, f.line, f.state, kept.host, NULLIF(f.http, -1), f.media, NULLIF(f.latency, -1), NULLIF(f.error, ''), $12::float8, $11::text
            FROM f JOIN kept ON kept.id = f.id WHERE f.state IN ('done', 'failed')
            ON CONFLICT (job_id) DO NOTHING
        ), per_host AS (
            SELECT kept.host, COUNT(*) AS n, MAX(f.hold) AS hold, MIN(f.due) FILTER (WHERE f.state = 'retry-later') AS retry
            FROM kept JOIN f ON f.id = kept.id WHERE kept.host IS NOT NULL GROUP BY kept.host
        ), eligible AS MATERIALIZED (
            -- Hosts whose freed slots this worker takes over at once (`$14` jobs wanted, no
            -- per-host delay): not held by a Retry-After, allowed to start now. The host row is
            -- read, not locked: a taken-over slot changes no count. Materialized: inlined,
            -- the planner read the host row once per job picked, after the pick.
            SELECT p.host, p.n FROM per_host p JOIN trawl_host t ON t.name = p.host
            WHERE $14::int4 > 0 AND $15::float8 = 0 AND p.hold = 0 AND t.next_allowed <= $12::float8
        ), \(LeaseSQL.pickAndLease(
            hosts: "eligible e", host: "e.host", room: "e.n", now: "$12::float8", limit: "$14::int4", owner: "$11::text", leaseUntil: "$16::float8")), surplus AS (
            -- Freed slots not taken over, per host.
            SELECT p.host, p.n - COALESCE((SELECT COUNT(*) FROM claimed c WHERE c.host = p.host), 0) AS n FROM per_host p
        ), returned AS (
            -- Slots not taken over go back in this worker's own row per host (see ClaimStatement).
            INSERT INTO trawl_host_returned (host, owner, n)
            SELECT host, $11::text, n FROM surplus WHERE n > 0 ORDER BY host
            ON CONFLICT (host, owner) DO UPDATE SET n = trawl_host_returned.n + EXCLUDED.n
        ), hosts AS (
            UPDATE trawl_host t SET
                next_allowed = GREATEST(t.next_allowed, p.hold),
                ready_at = CASE WHEN p.retry IS NULL THEN t.ready_at ELSE LEAST(t.ready_at, p.retry) END,
                work_seq = t.work_seq + CASE WHEN p.retry IS NULL THEN 0 ELSE 1 END
            FROM per_host p WHERE t.name = p.host AND (p.hold > t.next_allowed OR p.retry IS NOT NULL)
        ), worker AS (
            UPDATE trawl_worker SET finished = finished + (SELECT COUNT(*) FROM kept k JOIN f ON f.id = k.id WHERE f.state <> 'retry-later'),
                seen_at = $12::float8
            WHERE id = $11::text
        ), wake AS (
            -- A host that was full has room again, or a job waits to retry: idle workers may
            -- claim. Or this was the last work: workers told to exit when it is done may go.
            SELECT pg_notify('\(QueueStore.workChannel)', '') FROM (SELECT 1) AS once
            WHERE EXISTS (
                    -- As this statement's snapshot saw it: a claim committed meanwhile may be
                    -- missed, and an idle worker then looks again on its lease timer.
                    SELECT 1 FROM surplus p JOIN trawl_host t ON t.name = p.host
                    WHERE p.n > 0 AND t.in_flight - COALESCE((SELECT SUM(r.n) FROM trawl_host_returned r WHERE r.host = p.host), 0) >= $13::int4)
               OR EXISTS (SELECT 1 FROM per_host WHERE retry IS NOT NULL)
               -- (A group that took jobs over is not the last work: checked first, it spares
               -- the scans below, which walk the claimable index's not yet vacuumed entries.)
               -- Each look is the first row of a partial index in its order (see
               -- `QueueStore.hasUnfinishedWork`): as `EXISTS`, the planner scanned the table.
               OR (EXISTS (SELECT 1 FROM kept) AND NOT EXISTS (SELECT 1 FROM claimed)
                   AND (SELECT 1 FROM trawl_job WHERE state IN ('pending', 'retry-later') ORDER BY host, due_at, id LIMIT 1) IS NULL
                   AND (SELECT 1 FROM trawl_job WHERE state = 'running' AND id <> ALL($1::int8[]) ORDER BY lease_until LIMIT 1) IS NULL)
        )
        SELECT COALESCE((SELECT array_agg(id) FROM kept), '{}'::int8[]), (SELECT COUNT(*) FROM wake),
            NULL::int8, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::int4, NULL::text, NULL::float8, NULL::int4
        UNION ALL
        SELECT '{}'::int8[], 0, \(LeaseSQL.columns) FROM claimed
        """

    /// The first row: the jobs kept (the others' results were late) and whether workers were
    /// woken; then one row per job taken over (the claim's columns, see ``ClaimStatement``).
    typealias Row = ([Int64], Int64, Int64?, String?, String?, String?, String?, String?, Int32?, String?, Double?, Int32?)

    var ids: [Int64] = []
    var attempts: [Int32] = []
    var states: [String] = []
    var lines: [String] = []
    var errors: [String] = []
    var dues: [Double] = []
    var statuses: [Int32] = []
    var media: [Int32] = []
    var latencies: [Int32] = []
    var holds: [Double] = []
    let owner: String
    let now: Double
    let perHost: Int32
    /// Jobs to take over in the freed slots (0: none).
    let takeOver: Int32
    let delay: Double
    let leaseUntil: Double

    init(owner: String, now: Double, rules: ClaimRules, takeOver: Int, leaseUntil: Double) {
        self.owner = owner
        self.now = now
        perHost = Int32(rules.perHost)
        self.takeOver = Int32(max(0, takeOver))
        delay = rules.delay
        self.leaseUntil = leaseUntil
    }

    /// Adds one attempt's row to each column (-1, 0 and '' stand for none).
    mutating func append(_ finish: QueueFinish) {
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

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 16)
        bindings.append(ids)
        bindings.append(attempts)
        bindings.append(states)
        bindings.append(lines)
        bindings.append(errors)
        bindings.append(dues)
        bindings.append(statuses)
        bindings.append(media)
        bindings.append(latencies)
        bindings.append(holds)
        bindings.append(owner)
        bindings.append(now)
        bindings.append(perHost)
        bindings.append(takeOver)
        bindings.append(delay)
        bindings.append(leaseUntil)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
