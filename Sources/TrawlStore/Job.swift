/// One unit of batch work: a normalised URL (duplicates coalesce onto it) and its bookkeeping.
public struct Job: Sendable, Hashable, Identifiable {
    public var id: Int64
    /// What coalesces duplicates: the normalised URL, or a per-line key for a line that is not one.
    public var key: String
    /// The line as first given.
    public var input: String
    /// The normalised URL; `nil` for a line that is not a usable URL.
    public var url: String?
    /// The politeness key: the URL's host.
    public var host: String?
    public var state: JobState
    /// Attempts started, this one included once claimed.
    public var attempts: Int
    /// The last failure, for people (`HTTP 503`, `timed out: …`).
    public var lastError: String?
    /// Unix seconds before which a `retry-later` job is not claimed.
    public var nextAttemptAt: Double
    /// Further input lines that named the same URL.
    public var duplicates: Int

    public init(
        id: Int64, key: String, input: String, url: String?, host: String?, state: JobState, attempts: Int,
        lastError: String?, nextAttemptAt: Double, duplicates: Int
    ) {
        self.id = id
        self.key = key
        self.input = input
        self.url = url
        self.host = host
        self.state = state
        self.attempts = attempts
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
        self.duplicates = duplicates
    }
}

/// A line read from a URL list, about to become a job.
public struct NewJob: Sendable, Hashable {
    public var key: String
    public var input: String
    public var url: String?
    public var host: String?
    /// For a line that can never succeed (invalid URL, unsupported scheme): its final result.
    public var rejection: JobResult?

    public init(key: String, input: String, url: String?, host: String?, rejection: JobResult? = nil) {
        self.key = key
        self.input = input
        self.url = url
        self.host = host
        self.rejection = rejection
    }
}

/// A job's final answer, as stored beside its state and written to the output.
public struct JobResult: Sendable, Hashable {
    /// The output line (one JSON object, no newline).
    public var line: String
    public var httpStatus: Int?
    public var mediaCount: Int
    /// Time to the document's answer, for the summary's percentiles.
    public var latencyMilliseconds: Int?
    /// A short failure code (`http-404`, `invalid-url`); `nil` when the job succeeded.
    public var errorCode: String?
    /// The page was rendered in the headless browser.
    public var rendered: Bool

    public init(
        line: String, httpStatus: Int? = nil, mediaCount: Int = 0, latencyMilliseconds: Int? = nil, errorCode: String? = nil, rendered: Bool = false
    ) {
        self.rendered = rendered
        self.line = line
        self.httpStatus = httpStatus
        self.mediaCount = mediaCount
        self.latencyMilliseconds = latencyMilliseconds
        self.errorCode = errorCode
    }
}

/// How an attempt ended.
public enum JobOutcome: Sendable, Hashable {
    case done(JobResult)
    case failed(JobResult)
    /// Try again at `at` (unix seconds); `error` says why this attempt did not finish.
    case retryLater(at: Double, error: String)
}
