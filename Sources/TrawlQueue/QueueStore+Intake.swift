import Logging
import PostgresNIO
import Synchronization
public import TrawlStore

extension QueueStore: IntakeStore {
    public func intake(of source: String) async throws -> IntakeMark {
        try await run("read the intake mark of \(source)") { connection in
            let rows = try await connection.query("SELECT lines_read, complete FROM trawl_intake WHERE source = \(source)", logger: logger)
            for try await (lines, complete) in rows.decode((Int64, Bool).self) {
                return IntakeMark(linesRead: Int(lines), complete: complete)
            }
            return IntakeMark(linesRead: 0, complete: false)
        }
    }

    /// Pushes a chunk of a URL list: its hosts, its jobs (URLs coalesced by their normalised
    /// key, as in the SQLite store), its rejected lines with their results, and the intake mark,
    /// in one transaction; then wakes idle workers. Batched inserts: one statement per kind.
    public func addCounting(_ jobs: [NewJob], source: String, linesRead: Int, complete: Bool, now: Double) async throws -> IntakeCounts {
        let chunk = PushChunk(jobs)
        let repeated = Flag()
        return try await run("add jobs from \(source)", lostConnection: { repeated.set() }) { connection in
            let again = repeated.isSet
            return try await connection.withTransaction(logger: logger) { connection in
                if again, linesRead > 0 {
                    // Tried again after a lost connection: if the first try committed (the
                    // connection went before its answer), the mark is already past this chunk,
                    // and pushing it again would count its URLs as duplicates of themselves.
                    let marks = try await connection.query(
                        "SELECT lines_read FROM trawl_intake WHERE source = \(source) FOR UPDATE", logger: logger)
                    for try await read in marks.decode(Int64.self) where read >= Int64(linesRead) && !chunk.isEmpty {
                        return IntakeCounts(added: 0, rejected: 0)
                    }
                }
                // Host rows first, in name order (every writer takes host rows in that order).
                if !chunk.hosts.isEmpty {
                    try await connection.query(
                        """
                        INSERT INTO trawl_host (name, ready_at)
                        SELECT name, \(now) FROM unnest(\(chunk.hosts)::text[]) AS name ORDER BY name
                        ON CONFLICT (name) DO UPDATE SET ready_at = LEAST(trawl_host.ready_at, EXCLUDED.ready_at), work_seq = trawl_host.work_seq + 1
                        """, logger: logger)
                }
                var added = 0
                if !chunk.keys.isEmpty {
                    // Keys first (`trawl_job_key`, see QueueSchema v7): their insert waits for
                    // another intake that is adding the same key, so the next statement, which
                    // reads with a snapshot taken after it, sees that intake's job and counts a
                    // duplicate on it.
                    let fresh = try await Self.addKeys(chunk.keys, connection: connection, logger: logger)
                    let rows = try await connection.query(
                        """
                        WITH t AS (
                            SELECT * FROM unnest(\(chunk.keys)::text[], \(chunk.inputs)::text[], \(chunk.urls)::text[], \(chunk.jobHosts)::text[], \(chunk.duplicates)::int[])
                                AS t(key, input, url, host, duplicates)
                        ), fresh AS (
                            SELECT * FROM unnest(\(fresh.keys)::text[], \(fresh.ids)::int8[]) AS f(key, id)
                        ), added AS (
                            INSERT INTO trawl_job (id, key, input, url, host, state, duplicates, updated_at)
                            SELECT fresh.id, t.key, t.input, t.url, t.host, 'pending', t.duplicates, \(now)
                            FROM t JOIN fresh ON fresh.key = t.key ORDER BY fresh.id
                            RETURNING 1
                        ), again AS (
                            UPDATE trawl_job j SET duplicates = j.duplicates + 1 + t.duplicates
                            FROM t JOIN trawl_job_key k ON k.key = t.key
                            WHERE j.id = k.job_id AND NOT EXISTS (SELECT 1 FROM fresh WHERE fresh.key = t.key)
                        )
                        SELECT COUNT(*) FROM added
                        """, logger: logger)
                    for try await count in rows.decode(Int64.self) { added += Int(count) }
                }
                var rejected = 0
                if !chunk.rejectedKeys.isEmpty {
                    // A bad line is a job failed from the start with its result: reported once,
                    // however often the line is read again.
                    let fresh = try await Self.addKeys(chunk.rejectedKeys, connection: connection, logger: logger)
                    if !fresh.keys.isEmpty {
                        let rows = try await connection.query(
                            """
                            WITH fresh AS (
                                SELECT * FROM unnest(\(fresh.keys)::text[], \(fresh.ids)::int8[]) AS f(key, id)
                            ), added AS (
                                INSERT INTO trawl_job (id, key, input, state, last_error, updated_at)
                                SELECT fresh.id, t.key, t.input, 'failed', t.code, \(now)
                                FROM unnest(\(chunk.rejectedKeys)::text[], \(chunk.rejectedInputs)::text[], \(chunk.rejectedCodes)::text[]) AS t(key, input, code)
                                    JOIN fresh ON fresh.key = t.key
                                ORDER BY fresh.id
                                RETURNING id, key
                            ), results AS (
                                INSERT INTO trawl_result (job_id, line, outcome, error_code, finished_at)
                                SELECT added.id, r.line, 'failed', r.code, \(now)
                                FROM added JOIN unnest(\(chunk.rejectedKeys)::text[], \(chunk.rejectedLines)::text[], \(chunk.rejectedCodes)::text[]) AS r(key, line, code)
                                    ON r.key = added.key
                            )
                            SELECT COUNT(*) FROM added
                            """, logger: logger)
                        for try await count in rows.decode(Int64.self) { rejected += Int(count) }
                    }
                }
                try await connection.query(
                    """
                    INSERT INTO trawl_intake (source, lines_read, complete) VALUES (\(source), \(Int64(linesRead)), \(complete))
                    ON CONFLICT (source) DO UPDATE SET lines_read = EXCLUDED.lines_read, complete = EXCLUDED.complete
                    """, logger: logger)
                // Delivered at commit: idle workers wake when the jobs are there to claim.
                if added > 0 || complete {
                    try await connection.query("SELECT pg_notify(\(Self.workChannel), '')", logger: logger)
                }
                return IntakeCounts(added: added + rejected, rejected: rejected)
            }
        }
    }
}

extension QueueStore {
    /// Inserts the keys not yet in the queue, each with the id its job is to have (from the
    /// jobs' own sequence, in list order), and returns those: the keys of the jobs to add.
    static func addKeys(
        _ keys: [String], connection: PostgresConnection, logger: Logger
    ) async throws -> (keys: [String], ids: [Int64]) {
        let rows = try await connection.query(
            """
            INSERT INTO trawl_job_key (key, job_id)
            SELECT key, nextval('trawl_job_id_seq') FROM unnest(\(keys)::text[]) AS key
            ON CONFLICT (key) DO NOTHING
            RETURNING key, job_id
            """, logger: logger)
        var fresh: (keys: [String], ids: [Int64]) = ([], [])
        for try await (key, id) in rows.decode((String, Int64).self) {
            fresh.keys.append(key)
            fresh.ids.append(id)
        }
        return fresh
    }
}

/// One chunk of a list as columns for `unnest`, duplicates within it folded onto their first
/// line (one statement cannot insert a key and then update it).
struct PushChunk {
    var keys: [String] = []
    var inputs: [String] = []
    var urls: [String] = []
    var jobHosts: [String] = []
    var duplicates: [Int32] = []
    var hosts: [String] = []
    var rejectedKeys: [String] = []
    var rejectedInputs: [String] = []
    var rejectedLines: [String] = []
    var rejectedCodes: [String] = []

    init(_ jobs: [NewJob]) {
        var index: [String: Int] = [:]
        var rejected: Set<String> = []
        var hostSet: Set<String> = []
        for job in jobs {
            if let rejection = job.rejection {
                guard rejected.insert(job.key).inserted else { continue }
                rejectedKeys.append(job.key)
                rejectedInputs.append(job.input)
                rejectedLines.append(rejection.line)
                rejectedCodes.append(rejection.errorCode ?? "failed")
                continue
            }
            if let at = index[job.key] {
                duplicates[at] += 1
                continue
            }
            index[job.key] = keys.count
            keys.append(job.key)
            inputs.append(job.input)
            urls.append(job.url ?? job.key)
            jobHosts.append(job.host ?? "")
            duplicates.append(0)
            if let host = job.host { hostSet.insert(host) }
        }
        hosts = hostSet.sorted()
    }

    var isEmpty: Bool { keys.isEmpty && rejectedKeys.isEmpty }
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
