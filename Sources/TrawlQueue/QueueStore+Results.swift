import PostgresNIO
public import TrawlStore

extension QueueStore: ResultStore {
    /// Result lines numbered after `seq`. Results committed since the last call are numbered
    /// first, under a lock, so numbers follow the order results became visible: a result
    /// committed late by a slow worker gets a number after those already written out.
    public func results(after seq: Int64, limit: Int) async throws -> [(seq: Int64, line: String)] {
        try await run("read results") { connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(QueueSchema.migrationLock + 1))", logger: logger)
                try await connection.query(
                    """
                    UPDATE trawl_result SET out_seq = nextval('trawl_result_out_seq')
                    WHERE job_id IN (SELECT job_id FROM trawl_result WHERE out_seq IS NULL ORDER BY job_id LIMIT 100000)
                    """, logger: logger)
            }
            var lines: [(seq: Int64, line: String)] = []
            let rows = try await connection.query(
                "SELECT out_seq, line FROM trawl_result WHERE out_seq > \(seq) ORDER BY out_seq LIMIT \(Int64(limit))", logger: logger)
            for try await (number, line) in rows.decode((Int64, String).self) { lines.append((number, line)) }
            return lines
        }
    }

    public func outputMark(for path: String) async throws -> OutputMark {
        try await run("read the output mark of \(path)") { connection in
            let rows = try await connection.query("SELECT seq, bytes FROM trawl_output WHERE path = \(path)", logger: logger)
            for try await (seq, bytes) in rows.decode((Int64, Int64).self) { return OutputMark(seq: seq, bytes: bytes) }
            return OutputMark(seq: 0, bytes: 0)
        }
    }

    public func setOutputMark(_ mark: OutputMark, for path: String) async throws {
        try await run("record the output mark of \(path)") { connection in
            try await connection.query(
                """
                INSERT INTO trawl_output (path, seq, bytes) VALUES (\(path), \(mark.seq), \(mark.bytes))
                ON CONFLICT (path) DO UPDATE SET seq = EXCLUDED.seq, bytes = EXCLUDED.bytes
                """, logger: logger)
        }
    }

    public func progress() async throws -> StoreProgress {
        try await run("read the progress") { connection in
            var progress = StoreProgress()
            let rows = try await connection.query("SELECT state, COUNT(*), COALESCE(SUM(duplicates), 0)::bigint FROM trawl_job GROUP BY state", logger: logger)
            for try await (state, count, duplicates) in rows.decode((String, Int64, Int64).self) {
                if let state = JobState(rawValue: state) { progress.states[state] = Int(count) }
                progress.duplicates += Int(duplicates)
            }
            let figures = try await connection.query(
                """
                SELECT (SELECT COALESCE(SUM(media_count), 0)::bigint FROM trawl_result),
                       (SELECT MIN(due_at) FROM trawl_job WHERE state = 'retry-later'),
                       (SELECT COUNT(*) > 0 AND COALESCE(bool_and(complete), false) FROM trawl_intake)
                """, logger: logger)
            for try await (media, retry, complete) in figures.decode((Int64, Double?, Bool).self) {
                progress.mediaFound = Int(media)
                progress.nextRetryAt = retry
                progress.intakeComplete = complete
            }
            return progress
        }
    }

    public func summary(topHosts: Int) async throws -> StoreSummary {
        var summary = StoreSummary()
        summary.progress = try await progress()
        let started = summary
        return try await run("read the summary") { connection in
            var summary = started
            let hosts = try await connection.query(
                """
                SELECT COALESCE(host, '(invalid)') AS h, COUNT(*), COUNT(*) FILTER (WHERE outcome = 'done') FROM trawl_result
                GROUP BY h ORDER BY 2 DESC, h LIMIT \(Int64(topHosts))
                """, logger: logger)
            for try await (host, results, done) in hosts.decode((String, Int64, Int64).self) {
                summary.byHost.append(.init(host: host, results: Int(results), done: Int(done)))
            }
            let statuses = try await connection.query(
                """
                SELECT COALESCE(http_status::text, error_code, 'none') AS s, COUNT(*) FROM trawl_result GROUP BY s ORDER BY 2 DESC, s
                """, logger: logger)
            for try await (status, results) in statuses.decode((String, Int64).self) {
                summary.byStatus.append(.init(status: status, results: Int(results)))
            }
            let latency = try await connection.query(
                """
                SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY latency_ms), percentile_disc(0.95) WITHIN GROUP (ORDER BY latency_ms)
                FROM trawl_result WHERE latency_ms IS NOT NULL
                """, logger: logger)
            for try await (p50, p95) in latency.decode((Int32?, Int32?).self) {
                summary.latencyP50 = p50.map(Int.init)
                summary.latencyP95 = p95.map(Int.init)
            }
            return summary
        }
    }
}
