/// Where a batch keeps what it has read: how far each URL list was read into jobs, and the
/// jobs it added. The SQLite ``JobStore`` and the PostgreSQL queue both keep it.
public protocol IntakeStore: Sendable {
    /// How far `source` has been read into jobs.
    func intake(of source: String) async throws -> IntakeMark

    /// Adds the jobs read from `source` and records how far it has been read, in one
    /// transaction; a job whose key exists already counts as a duplicate of it.
    func addCounting(_ jobs: [NewJob], source: String, linesRead: Int, complete: Bool, now: Double) async throws -> IntakeCounts
}

/// Where a batch's final answers are numbered for the output, and where the output file's
/// watermark is kept (see `OutputFile`), with the progress and summary read from them.
public protocol ResultStore: Sendable {
    /// Result lines numbered after `seq`, in order.
    func results(after seq: Int64, limit: Int) async throws -> [(seq: Int64, line: String)]
    /// How much of the output file at `path` is known to hold results in order.
    func outputMark(for path: String) async throws -> OutputMark
    func setOutputMark(_ mark: OutputMark, for path: String) async throws
    /// How many jobs are in each state, and what the results say.
    func progress() async throws -> StoreProgress
    /// The figures for a run's closing summary.
    func summary(topHosts: Int) async throws -> StoreSummary
}

/// Everything ``BatchRunner`` asks of its store: intake, results and output marks, and the
/// scheduling calls its loop makes (claims by host, finished attempts, abandoned jobs).
public protocol BatchStore: IntakeStore, ResultStore {
    /// Puts jobs a dead run left `running` back to `pending`; returns how many.
    func recoverAbandoned(now: Double) async throws -> Int
    /// The hosts with unfinished jobs: how many are due at `now`, and when the next one is.
    func hostsWithWork(now: Double) async throws -> [HostWork]
    /// Claims up to `limit` due jobs of each host and marks them `running`, in one transaction.
    func claim(_ wants: [(host: String, limit: Int)], now: Double) async throws -> Claim
    /// Records how several attempts ended: each job's state change and result together.
    func finish(_ finishes: [JobStore.Finish]) async throws
}

extension JobStore: BatchStore {}
