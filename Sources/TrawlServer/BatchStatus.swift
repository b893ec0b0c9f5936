import TrawlStore

/// `GET /v1/batches/{id}`: where a batch stands, read from its job store.
///
/// ```json
/// {"done":2,"duplicates":0,"failed":1,"id":"3f2a…","intakeComplete":true,"mediaFound":5,"pending":0,
///  "results":"/v1/batches/3f2a…/results","retry-later":0,"running":0,"state":"finished","total":3}
/// ```
struct BatchStatus: Codable, Sendable, Hashable {
    var id: String
    /// `running`, `finished` (every job done or failed), `stopped` (the server stopped it;
    /// it goes on when the server starts again), or `failed` (the batch itself could not run).
    var state: String
    var total: Int
    var pending: Int
    var running: Int
    var done: Int
    var failed: Int
    var retryLater: Int
    var duplicates: Int
    var mediaFound: Int
    /// The posted list has been read to its end: ``total`` is final.
    var intakeComplete: Bool
    /// Where the results are, as JSON lines.
    var results: String
    /// Why the batch could not run, when ``state`` is `failed`.
    var error: String?

    enum CodingKeys: String, CodingKey {
        case id, state, total, pending, running, done, failed, duplicates, mediaFound, intakeComplete, results, error
        case retryLater = "retry-later"
    }

    init(id: String, state: String, progress: StoreProgress, error: String? = nil) {
        self.id = id
        self.state = state
        total = progress.total
        pending = progress[.pending]
        running = progress[.running]
        done = progress[.done]
        failed = progress[.failed]
        retryLater = progress[.retryLater]
        duplicates = progress.duplicates
        mediaFound = progress.mediaFound
        intakeComplete = progress.intakeComplete
        results = "/v1/batches/\(id)/results"
        self.error = error
    }
}
