import Foundation
public import Trawl
import TrawlBrowser
public import TrawlCore
public import TrawlFetch

/// How a batch run behaves. The defaults are polite to strangers' hosts and quick on one's own.
///
/// ```swift
/// var configuration = BatchConfiguration()
/// configuration.concurrency = 32
/// configuration.fetch.perHost = 4
/// configuration.fetch.cache = try FetchPolicy.Cache(directory: URL(fileURLWithPath: "cache"))
/// configuration.resolve.browser = .auto
/// ```
public struct BatchConfiguration: Sendable {
    /// Jobs in flight at once, over all hosts.
    public var concurrency = 16
    /// The cache, retries, backoff, `Retry-After` and per-host limits every command shares. A
    /// batch applies the retry and politeness parts per job (a job waiting to retry goes back to
    /// the store and other hosts go on); only the cache sits in its transport
    /// (``FetchPolicy/underJobScheduler``).
    public var fetch = FetchPolicy()
    /// Adapt each host's delay to its latency, like Scrapy's AutoThrottle.
    public var autothrottle = false
    /// With ``autothrottle``: requests one host should have in flight on average.
    public var autothrottleTarget: Double = 1.0
    /// The longest delay autothrottle or a `Retry-After` may impose between requests.
    public var maxDelay: Duration = .seconds(60)
    /// Ask each host's `/robots.txt` first and skip what it disallows.
    public var robots = false
    /// Input lines longer than this many bytes fail as over-long.
    public var maxLineLength = 8192
    /// Lines read into the store per transaction.
    public var intakeChunk = 2000
    /// How each job is resolved, as `trawl resolve` would: the loader, the browser, a replay,
    /// probing, the sink. Its `TrawlConfiguration.fetch` is not used: a batch's requests go
    /// through ``fetch`` with the retries and politeness left to the scheduler.
    public var resolve = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(30)))
    /// A renderer to share instead of one of the run's own (a server's batches and resolves
    /// use one browser); `nil`: the run starts its own when ``browser`` asks for one.
    public var renderer: (any PageRenderer)?

    public init() {}
}
