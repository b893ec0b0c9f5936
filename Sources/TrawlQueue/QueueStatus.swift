import PostgresNIO
import TrawlStore

/// Where a shared queue stands: jobs by state, by host (with the fleet's politeness state) and
/// by worker. What `trawl queue status` shows.
public struct QueueStatus: Sendable, Hashable, Codable {
    public struct Host: Sendable, Hashable, Codable {
        public var host: String
        public var pending: Int
        public var running: Int
        public var done: Int
        public var failed: Int
        /// Requests in flight over the fleet, as the host row counts them.
        public var inFlight: Int
        /// Unix seconds before which no worker starts a request to this host (delay, `Retry-After`).
        public var nextAllowed: Double
    }

    public struct Worker: Sendable, Hashable, Codable {
        public var id: String
        public var machine: String
        public var pid: Int
        public var concurrency: Int
        /// Jobs it holds leases on now.
        public var running: Int
        /// Jobs it finished.
        public var finished: Int
        public var seenAt: Double
        /// It stopped cleanly (`nil`: working, or died without saying so).
        public var stoppedAt: Double?
    }

    /// Jobs by state (`pending`, `running`, `done`, `failed`, `retry-later`).
    public var states: [String: Int] = [:]
    public var total: Int { states.values.reduce(0, +) }
    public var duplicates = 0
    public var intakeComplete = false
    public var hosts: [Host] = []
    public var workers: [Worker] = []
    public var migrations: [String] = []
}

extension QueueStore {
    /// The queue's progress by state, the `topHosts` hosts with the most unfinished jobs, and every worker.
    public func status(topHosts: Int = 20) async throws -> QueueStatus {
        var status = QueueStatus()
        let progress = try await progress()
        for state in JobState.allCases { status.states[state.rawValue] = progress[state] }
        status.duplicates = progress.duplicates
        status.intakeComplete = progress.intakeComplete
        status.migrations = try await appliedMigrations()
        let started = status
        return try await run("read the queue's status") { connection in
            var status = started
            let hosts = try await connection.query(
                """
                SELECT j.host,
                       COUNT(*) FILTER (WHERE j.state IN ('pending', 'retry-later')),
                       COUNT(*) FILTER (WHERE j.state = 'running'),
                       COUNT(*) FILTER (WHERE j.state = 'done'),
                       COUNT(*) FILTER (WHERE j.state = 'failed'),
                       COALESCE(MAX(h.in_flight - COALESCE(r.n, 0)), 0)::int4, COALESCE(MAX(h.next_allowed), 0)
                FROM trawl_job j LEFT JOIN trawl_host h ON h.name = j.host
                    LEFT JOIN (SELECT host, SUM(n) AS n FROM trawl_host_returned GROUP BY host) r ON r.host = j.host
                WHERE j.host IS NOT NULL
                GROUP BY j.host
                ORDER BY COUNT(*) FILTER (WHERE j.state NOT IN ('done', 'failed')) DESC, COUNT(*) DESC, j.host
                LIMIT \(Int64(topHosts))
                """, logger: logger)
            for try await (host, pending, running, done, failed, inFlight, nextAllowed) in hosts.decode(
                (String, Int64, Int64, Int64, Int64, Int32, Double).self)
            {
                status.hosts.append(
                    QueueStatus.Host(
                        host: host, pending: Int(pending), running: Int(running), done: Int(done), failed: Int(failed), inFlight: Int(inFlight),
                        nextAllowed: nextAllowed))
            }
            let workers = try await connection.query(
                """
                SELECT w.id, w.machine, w.pid, w.concurrency,
                       (SELECT COUNT(*) FROM trawl_job j WHERE j.state = 'running' AND j.lease_owner = w.id),
                       w.finished, w.seen_at, w.stopped_at
                FROM trawl_worker w ORDER BY w.started_at, w.id
                """, logger: logger)
            for try await (id, machine, pid, concurrency, running, finished, seen, stopped) in workers.decode(
                (String, String, Int32, Int32, Int64, Int64, Double, Double?).self)
            {
                status.workers.append(
                    QueueStatus.Worker(
                        id: id, machine: machine, pid: Int(pid), concurrency: Int(concurrency), running: Int(running), finished: Int(finished),
                        seenAt: seen, stoppedAt: stopped))
            }
            return status
        }
    }
}
