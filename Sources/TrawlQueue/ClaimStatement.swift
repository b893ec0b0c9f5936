import PostgresNIO

/// The claim of ``QueueStore/claim(limit:owner:rules:now:leaseUntil:)`` as a prepared
/// statement: each pooled connection parses and plans it once. Planning the statement anew
/// on every call cost more than running it (`pgbench` on this statement: 2.5 times the claims
/// per second prepared).
///
/// Eligible host rows are locked (`SKIP LOCKED`: another worker's claim is never waited for),
/// walked in claim order from `trawl_host_claim_order`; their oldest due jobs are taken from
/// the partial index of claimable jobs (`SKIP LOCKED` again), marked running, and the hosts'
/// in-flight counts, next allowed start and readiness updated. A host that gave nothing only
/// because the limit was reached is left as it was (it keeps its place in the order).
///
/// A host's requests in flight are its `in_flight` less the slots finishes gave back in
/// `trawl_host_returned` (one row per host and worker, so a finish never holds the host row
/// and finishes on one host never wait for each other). The claim reads those rows as of its snapshot — a finish
/// committed since is not counted yet, which only makes the host look fuller — and folds the
/// rows of the hosts it took from into `in_flight` (under their host rows' locks), subtracting
/// exactly what it deleted.
///
/// The transaction's commit does not wait for its WAL flush (`synchronous_commit` off for this
/// transaction only, set inside the statement: no extra round trip). A claim lost in a server
/// crash returns its jobs to the queue, and a finish for one of them then matches no lease and
/// is discarded; finishes do not wait either (see ``FinishStatement``), and the output mark's
/// commit, which does, flushes every claim and finish before it.
struct ClaimStatement: PostgresPreparedStatement {
    static let sql = """
        WITH h AS (
            SELECT name, work_seq, LEAST($1::int4 - GREATEST(0, in_flight - COALESCE(r.n, 0)), $2::int4) AS room
            FROM trawl_host
                LEFT JOIN LATERAL (SELECT SUM(n) AS n FROM trawl_host_returned WHERE host = trawl_host.name) AS r ON true,
                (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
            WHERE ready_at <= $3::float8 AND next_allowed <= $3::float8 AND in_flight - COALESCE(r.n, 0) < $1::int4
            ORDER BY claimed_at, name
            LIMIT $4::int4
            FOR UPDATE OF trawl_host SKIP LOCKED
        ), \(LeaseSQL.pickAndLease(
            hosts: "h", host: "h.name", room: "h.room", now: "$3::float8", limit: "$5::int4", owner: "$6::text", leaseUntil: "$7::float8")), counted AS (
            SELECT h.name, h.work_seq, COUNT(c.id) AS n, COALESCE(array_agg(c.id) FILTER (WHERE c.id IS NOT NULL), '{}') AS ids
            FROM h LEFT JOIN claimed c ON c.host = h.name
            GROUP BY h.name, h.work_seq
        ), folded AS (
            -- Slots finishes gave back, folded into the count of the hosts this claim took
            -- from (their rows are locked here); rows a finish is writing now are left.
            DELETE FROM trawl_host_returned r
            WHERE r.ctid IN (SELECT x.ctid FROM trawl_host_returned x
                             WHERE x.host IN (SELECT name FROM counted WHERE n > 0) FOR UPDATE SKIP LOCKED)
            RETURNING r.host, r.n
        ), hosts AS (
            UPDATE trawl_host t SET
                in_flight = t.in_flight + counted.n - COALESCE((SELECT SUM(d.n) FROM folded d WHERE d.host = counted.name), 0),
                claimed_at = $3::float8,
                next_allowed = CASE WHEN $8::float8 > 0 AND counted.n > 0 THEN $3::float8 + $8::float8 ELSE t.next_allowed END,
                ready_at = CASE
                    WHEN counted.work_seq = (SELECT s.work_seq FROM trawl_host s WHERE s.name = counted.name) THEN
                        COALESCE((SELECT MIN(r.due_at) FROM trawl_job r
                                  WHERE r.host = counted.name AND r.state IN ('pending', 'retry-later') AND r.id <> ALL(counted.ids)),
                                 'Infinity')
                    ELSE LEAST(t.ready_at, $3::float8) END
            FROM counted WHERE t.name = counted.name
                -- A host left out only by the claim's limit keeps its place, unchanged.
                AND (counted.n > 0 OR NOT EXISTS (
                    SELECT 1 FROM trawl_job d
                    WHERE d.host = counted.name AND d.state IN ('pending', 'retry-later') AND d.due_at <= $3::float8))
        )
        SELECT \(LeaseSQL.columns) FROM claimed
        """

    typealias Row = LeaseSQL.Row

    var perHost: Int32
    var perClaim: Int32
    var now: Double
    var hosts: Int32
    var limit: Int32
    var owner: String
    var leaseUntil: Double
    var delay: Double

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(perHost)
        bindings.append(perClaim)
        bindings.append(now)
        bindings.append(hosts)
        bindings.append(limit)
        bindings.append(owner)
        bindings.append(leaseUntil)
        bindings.append(delay)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}
