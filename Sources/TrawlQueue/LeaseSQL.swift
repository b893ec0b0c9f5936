import TrawlStore

/// The SQL a claim (``ClaimStatement``) and a finish's take-over (``FinishStatement``) share to
/// lease jobs: the oldest due jobs of each host, up to its room, taken from the partial index of
/// claimable jobs with `FOR UPDATE SKIP LOCKED` (a job another worker is taking is passed
/// over, never waited for), then marked running under the worker's lease.
enum LeaseSQL {
    /// The `picked` and `claimed` common table expressions (without the leading `WITH` or a
    /// comma after). `hosts` names a table expression with one row per host and the columns
    /// named by `host` and `room`; the other arguments are SQL expressions (parameters).
    /// `claimed` returns ``columns``.
    static func pickAndLease(
        hosts: String, host: String, room: String, now: String, limit: String, owner: String, leaseUntil: String
    ) -> String {
        """
        picked AS (
                    SELECT j.id, j.state AS was FROM \(hosts) CROSS JOIN LATERAL (
                        SELECT id, state FROM trawl_job
                        WHERE host = \(host) AND state IN ('pending', 'retry-later') AND due_at <= \(now)
                        ORDER BY due_at, id
                        LIMIT \(room)
                        FOR UPDATE SKIP LOCKED
                    ) j
                    LIMIT \(limit)
                ), claimed AS (
                    UPDATE trawl_job j SET state = 'running', attempts = j.attempts + 1, lease_owner = \(owner),
                        lease_until = \(leaseUntil), updated_at = \(now)
                    FROM picked WHERE j.id = picked.id
                    RETURNING j.id, j.key, j.input, j.url, j.host, picked.was, j.attempts, j.last_error, j.due_at, j.duplicates
                )
        """
    }

    /// What `claimed` returns, by name.
    static let columns = "id, key, input, url, host, was, attempts, last_error, due_at, duplicates"

    /// One row of ``columns``.
    typealias Row = (Int64, String, String, String?, String?, String, Int32, String?, Double, Int32)
}

extension Job {
    /// A job as a claim or a take-over leased it (`state` is what it was before: pending or
    /// waiting to retry).
    init(leased row: LeaseSQL.Row) {
        let (id, key, input, url, host, was, attempts, lastError, due, duplicates) = row
        self.init(
            id: id, key: key, input: input, url: url, host: host, state: JobState(rawValue: was) ?? .pending,
            attempts: Int(attempts), lastError: lastError, nextAttemptAt: due, duplicates: Int(duplicates))
    }
}
