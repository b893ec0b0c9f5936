import Foundation
import GRDB

/// Durable batch jobs in one SQLite file (WAL).
///
/// Every state change that carries a result commits the job's new state and its result in one
/// transaction, so a process killed at any instant leaves each job either before or after the
/// change, never between. Commits do not wait for the disk (`synchronous = NORMAL`): they
/// survive the process dying, and a power cut can lose only the last moments, never corrupt.
///
/// ```swift
/// let store = try JobStore(path: "trawl.sqlite")
/// try store.add([NewJob(key: url, input: line, url: url, host: "giphy.com")], source: "urls.txt", linesRead: 1, complete: true)
/// let jobs = try store.claim([("giphy.com", 4)], now: Date().timeIntervalSince1970)
/// ```
public final class JobStore: Sendable {
    /// The store file.
    public let path: String
    private let pool: DatabasePool

    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try pool.write { db in try StoreMigrations.claim(db) }
            try StoreMigrations.migrator.migrate(pool)
        } catch let error as StoreMigrations.NotAJobStore {
            throw StoreError(
                .openFailed, path: path,
                message: "an SQLite database that is not a Trawl job store (it holds \(error.tables)); it was left as it is: give --store another file")
        } catch let error as DatabaseError {
            // SQLite's own words, not the statement it was running.
            throw StoreError(
                .openFailed, path: path,
                message:
                    "cannot be read as a job store (SQLite: \(error.message ?? "error \(error.resultCode.rawValue)")): move it aside or give --store another file",
                underlying: error)
        } catch {
            throw StoreError(.openFailed, path: path, message: "cannot open the job store: \(error)", underlying: error)
        }
    }

    // MARK: Intake

    /// How far `source` has been read into jobs.
    public func intake(of source: String) throws -> IntakeMark {
        try pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT linesRead, complete FROM intake WHERE source = ?", arguments: [source]) else {
                return IntakeMark(linesRead: 0, complete: false)
            }
            return IntakeMark(linesRead: row["linesRead"], complete: row["complete"])
        }
    }

    /// Adds the jobs read from `source` and records how far it has been read, in one transaction:
    /// a killed intake resumes at the first line it had not committed. A job whose key exists
    /// already counts as a duplicate of it.
    /// - Returns: how many new jobs there are (duplicates and repeats not counted).
    @discardableResult
    public func add(_ jobs: [NewJob], source: String, linesRead: Int, complete: Bool, now: Double) throws -> Int {
        try addCounting(jobs, source: source, linesRead: linesRead, complete: complete, now: now).added
    }

    /// ``add(_:source:linesRead:complete:now:)``, saying also how many of the new jobs were
    /// rejections (failed from the start, their result written): progress counts them as failed.
    public func addCounting(_ jobs: [NewJob], source: String, linesRead: Int, complete: Bool, now: Double) throws -> IntakeCounts {
        try pool.write { db in
            var added = 0
            var rejected = 0
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO job (key, input, url, host, state, updatedAt) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET duplicates = duplicates + 1
                    RETURNING duplicates
                    """)
            let reject = try db.cachedStatement(
                sql: """
                    INSERT INTO job (key, input, url, host, state, lastError, updatedAt) VALUES (?, ?, ?, ?, 'failed', ?, ?)
                    ON CONFLICT(key) DO NOTHING
                    """)
            for job in jobs {
                if let rejection = job.rejection {
                    try reject.execute(arguments: [job.key, job.input, job.url, job.host, rejection.errorCode, now])
                    if db.changesCount > 0 {
                        added += 1
                        rejected += 1
                        try Self.insertResult(rejection, outcome: .failed, jobID: db.lastInsertedRowID, host: job.host, now: now, db: db)
                    }
                } else {
                    let duplicates = try Int.fetchOne(insert, arguments: [job.key, job.input, job.url, job.host, JobState.pending.rawValue, now])
                    if duplicates == 0 { added += 1 }
                }
            }
            try db.execute(
                sql: """
                    INSERT INTO intake (source, linesRead, complete) VALUES (?, ?, ?)
                    ON CONFLICT(source) DO UPDATE SET linesRead = excluded.linesRead, complete = excluded.complete
                    """, arguments: [source, linesRead, complete])
            return IntakeCounts(added: added, rejected: rejected)
        }
    }

    // MARK: Scheduling

    /// Puts `running` jobs back to `pending`: only a run that died leaves them, so call this
    /// once the caller holds the store's ``RunLock``. Returns how many there were.
    @discardableResult
    public func recoverAbandoned(now: Double) throws -> Int {
        try pool.write { db in
            try db.execute(sql: "UPDATE job SET state = 'pending', updatedAt = ? WHERE state = 'running'", arguments: [now])
            return db.changesCount
        }
    }

    /// The hosts with unfinished jobs: how many are due at `now`, and when the next one not yet
    /// due will be. One pass over the unfinished jobs: call it rarely (at start, after intake).
    public func hostsWithWork(now: Double) throws -> [HostWork] {
        try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT host, SUM(nextAttemptAt <= ?) AS due, MIN(CASE WHEN nextAttemptAt > ? THEN nextAttemptAt END) AS later
                    FROM job WHERE state IN ('pending', 'retry-later') AND host IS NOT NULL GROUP BY host
                    """, arguments: [now, now]
            ).map { HostWork(host: $0["host"], due: $0["due"], nextAt: $0["later"]) }
        }
    }

    /// Claims up to `limit` due jobs of each host (oldest first) and marks them `running`, their
    /// attempt counted, in one transaction. The jobs come back with the attempt counted and the
    /// state they had before the claim (`pending` or `retry-later`). A host that had fewer than asked is listed in
    /// ``Claim/exhausted`` with the time its next job falls due, if it has one.
    public func claim(_ wants: [(host: String, limit: Int)], now: Double) throws -> Claim {
        try pool.write { db in try Self.claim(wants, now: now, db: db) }
    }

    /// ``claim(_:now:)`` that suspends instead of holding one of the caller's executor threads
    /// while SQLite works (GRDB runs the write on its writer queue).
    public func claim(_ wants: [(host: String, limit: Int)], now: Double) async throws -> Claim {
        try await pool.write { db in try Self.claim(wants, now: now, db: db) }
    }

    private static func claim(_ wants: [(host: String, limit: Int)], now: Double, db: Database) throws -> Claim {
        var claim = Claim()
        let select = try db.cachedStatement(
            sql: """
                SELECT id, key, input, url, host, state, attempts, lastError, nextAttemptAt, duplicates FROM job
                WHERE host = ? AND state IN ('pending', 'retry-later') AND nextAttemptAt <= ? ORDER BY nextAttemptAt, id LIMIT ?
                """)
        let mark = try db.cachedStatement(sql: "UPDATE job SET state = 'running', attempts = attempts + 1, updatedAt = ? WHERE id = ?")
        for (host, limit) in wants where limit > 0 {
            var jobs = try Row.fetchAll(select, arguments: [host, now, limit]).map(Self.job)
            for index in jobs.indices {
                try mark.execute(arguments: [now, jobs[index].id])
                jobs[index].attempts += 1
            }
            if jobs.count < limit {
                let next = try Double.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT MIN(nextAttemptAt) FROM job WHERE host = ? AND state IN ('pending', 'retry-later')
                            """), arguments: [host])
                claim.exhausted[host] = .some(next)
            }
            claim.jobs += jobs
        }
        return claim
    }

    /// Records how an attempt ended: the state change and the result commit together.
    public func finish(_ jobID: Int64, host: String?, outcome: JobOutcome, now: Double) throws {
        try pool.write { db in try Self.finish(jobID, host: host, outcome: outcome, now: now, db: db) }
    }

    /// Records how several attempts ended, in one transaction (each job's state change and
    /// result together, as ``finish(_:host:outcome:now:)`` does), suspending instead of holding
    /// one of the caller's executor threads while SQLite writes: on a two-core machine a
    /// blocked thread is half the pool that parses pages.
    public func finish(_ finishes: [Finish]) async throws {
        guard !finishes.isEmpty else { return }
        try await pool.write { db in
            for finish in finishes { try Self.finish(finish.jobID, host: finish.host, outcome: finish.outcome, now: finish.now, db: db) }
        }
    }

    /// How one attempt ended, for ``finish(_:)``.
    public struct Finish: Sendable {
        public var jobID: Int64
        public var host: String?
        public var outcome: JobOutcome
        public var now: Double

        public init(jobID: Int64, host: String?, outcome: JobOutcome, now: Double) {
            self.jobID = jobID
            self.host = host
            self.outcome = outcome
            self.now = now
        }
    }

    private static func finish(_ jobID: Int64, host: String?, outcome: JobOutcome, now: Double, db: Database) throws {
        switch outcome {
        case .done(let result), .failed(let result):
            let state: JobState
            if case .done = outcome { state = .done } else { state = .failed }
            try db.cachedStatement(sql: "UPDATE job SET state = ?, lastError = ?, updatedAt = ? WHERE id = ?")
                .execute(arguments: [state.rawValue, result.errorCode, now, jobID])
            try Self.insertResult(result, outcome: state, jobID: jobID, host: host, now: now, db: db)
        case .retryLater(let at, let error):
            try db.cachedStatement(sql: "UPDATE job SET state = 'retry-later', lastError = ?, nextAttemptAt = ?, updatedAt = ? WHERE id = ?")
                .execute(arguments: [error, at, now, jobID])
        }
    }

    private static func insertResult(_ result: JobResult, outcome: JobState, jobID: Int64, host: String?, now: Double, db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO result (jobID, line, outcome, host, httpStatus, mediaCount, latencyMs, errorCode, finishedAt, rendered)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(jobID) DO NOTHING
                """
        ).execute(arguments: [
            jobID, result.line, outcome.rawValue, host, result.httpStatus, result.mediaCount,
            result.latencyMilliseconds, result.errorCode, now, result.rendered,
        ])
    }

    private static func job(_ row: Row) -> Job {
        Job(
            id: row["id"], key: row["key"], input: row["input"], url: row["url"], host: row["host"],
            state: JobState(rawValue: row["state"]) ?? .pending, attempts: row["attempts"], lastError: row["lastError"],
            nextAttemptAt: row["nextAttemptAt"], duplicates: row["duplicates"])
    }

    /// The job with `key`, if there is one.
    public func job(key: String) throws -> Job? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM job WHERE key = ?", arguments: [key]).map(Self.job)
        }
    }

    // MARK: Output

    /// Result lines after `seq`, in order.
    public func results(after seq: Int64, limit: Int) throws -> [(seq: Int64, line: String)] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, line FROM result WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [seq, limit])
                .map { ($0["seq"], $0["line"]) }
        }
    }

    /// How much of the output file at `path` is known to hold results in order.
    public func outputMark(for path: String) throws -> OutputMark {
        try pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT seq, bytes FROM output WHERE path = ?", arguments: [path]) else {
                return OutputMark(seq: 0, bytes: 0)
            }
            return OutputMark(seq: row["seq"], bytes: row["bytes"])
        }
    }

    public func setOutputMark(_ mark: OutputMark, for path: String) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO output (path, seq, bytes) VALUES (?, ?, ?)
                    ON CONFLICT(path) DO UPDATE SET seq = excluded.seq, bytes = excluded.bytes
                    """, arguments: [path, mark.seq, mark.bytes])
        }
    }

    // MARK: Progress

    /// How many jobs are in each state, and what the results say.
    public func progress() throws -> StoreProgress {
        try pool.read { db in try Self.progress(db) }
    }

    /// The figures for a run's closing summary, read from the results.
    public func summary(topHosts: Int = 10) throws -> StoreSummary {
        try pool.read { db in
            var summary = StoreSummary()
            summary.progress = try Self.progress(db)
            summary.byHost = try Row.fetchAll(
                db,
                sql: """
                    SELECT COALESCE(host, '(invalid)') AS host, COUNT(*) AS n, SUM(outcome = 'done') AS ok FROM result
                    GROUP BY host ORDER BY n DESC, host LIMIT ?
                    """, arguments: [topHosts]
            ).map { StoreSummary.HostLine(host: $0["host"], results: $0["n"], done: $0["ok"]) }
            summary.byStatus = try Row.fetchAll(
                db,
                sql: """
                    SELECT COALESCE(CAST(httpStatus AS TEXT), errorCode, 'none') AS status, COUNT(*) AS n FROM result
                    GROUP BY status ORDER BY n DESC, status
                    """
            ).map { StoreSummary.StatusLine(status: $0["status"], results: $0["n"]) }
            let timed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM result WHERE latencyMs IS NOT NULL") ?? 0
            if timed > 0 {
                func percentile(_ p: Double) throws -> Int? {
                    let offset = min(timed - 1, Int((Double(timed) * p).rounded(.up)) - 1)
                    return try Int.fetchOne(
                        db, sql: "SELECT latencyMs FROM result WHERE latencyMs IS NOT NULL ORDER BY latencyMs LIMIT 1 OFFSET ?", arguments: [max(0, offset)])
                }
                summary.latencyP50 = try percentile(0.5)
                summary.latencyP95 = try percentile(0.95)
            }
            return summary
        }
    }

    private static func progress(_ db: Database) throws -> StoreProgress {
        var progress = StoreProgress()
        for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n, SUM(duplicates) AS d FROM job GROUP BY state") {
            if let state = JobState(rawValue: row["state"]) { progress.states[state] = row["n"] }
            progress.duplicates += row["d"] ?? 0
        }
        progress.mediaFound = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(mediaCount), 0) FROM result") ?? 0
        progress.pagesRendered = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(rendered), 0) FROM result") ?? 0
        progress.nextRetryAt = try Double.fetchOne(db, sql: "SELECT MIN(nextAttemptAt) FROM job WHERE state = 'retry-later'")
        progress.intakeComplete = try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 AND MIN(complete) FROM intake") ?? false
        return progress
    }
}

/// What one ``JobStore/addCounting(_:source:linesRead:complete:now:)`` added.
public struct IntakeCounts: Sendable, Hashable {
    /// New jobs, rejections included (repeats of known keys are not new).
    public var added: Int
    /// New jobs that were rejected lines, failed from the start.
    public var rejected: Int

    public init(added: Int, rejected: Int) {
        self.added = added
        self.rejected = rejected
    }
}

/// How far an input list has been read into jobs.
public struct IntakeMark: Sendable, Hashable {
    public var linesRead: Int
    public var complete: Bool

    public init(linesRead: Int, complete: Bool) {
        self.linesRead = linesRead
        self.complete = complete
    }
}

/// A host's unfinished jobs.
public struct HostWork: Sendable, Hashable {
    public var host: String
    /// Jobs due now.
    public var due: Int
    /// When the earliest job not yet due falls due (unix seconds).
    public var nextAt: Double?
}

/// What ``JobStore/claim(_:now:)`` handed out.
public struct Claim: Sendable {
    public var jobs: [Job] = []
    /// Hosts that had fewer due jobs than asked, with when their next job falls due (`nil`: none left).
    public var exhausted: [String: Double?] = [:]
}

/// How much of an output file holds results: every result up to `seq`, in `bytes` bytes.
public struct OutputMark: Sendable, Hashable {
    public var seq: Int64
    public var bytes: Int64

    public init(seq: Int64, bytes: Int64) {
        self.seq = seq
        self.bytes = bytes
    }
}

/// Job counts by state.
public struct StoreProgress: Sendable, Hashable {
    public var states: [JobState: Int] = [:]
    /// Input lines that repeated a URL already listed.
    public var duplicates = 0
    public var mediaFound = 0
    /// Finished pages that were rendered in the headless browser.
    public var pagesRendered = 0
    public var nextRetryAt: Double?
    /// Every input list given to the store was read to its end.
    public var intakeComplete = false

    public init() {}

    public var total: Int { states.values.reduce(0, +) }
    public var finished: Int { (states[.done] ?? 0) + (states[.failed] ?? 0) }
    public var unfinished: Int { total - finished }
    public subscript(state: JobState) -> Int { states[state] ?? 0 }
}

/// A closing summary's figures.
public struct StoreSummary: Sendable, Hashable {
    public struct HostLine: Sendable, Hashable {
        public var host: String
        public var results: Int
        public var done: Int

        public init(host: String, results: Int, done: Int) {
            self.host = host
            self.results = results
            self.done = done
        }
    }
    public var progress = StoreProgress()
    public var byHost: [HostLine] = []
    /// HTTP status (or failure code) and how many results had it.
    public var byStatus: [StatusLine] = []
    public var latencyP50: Int?
    public var latencyP95: Int?

    public struct StatusLine: Sendable, Hashable {
        public var status: String
        public var results: Int

        public init(status: String, results: Int) {
            self.status = status
            self.results = results
        }
    }

    public init() {}
}
