import Foundation
import TrawlCore
import TrawlFetch

/// How a batch run behaves. The defaults are polite to strangers' hosts and quick on one's own.
///
/// ```swift
/// var configuration = BatchConfiguration()
/// configuration.concurrency = 32
/// configuration.perHost = 4
/// configuration.cache = BatchConfiguration.Cache(directory: URL(fileURLWithPath: "cache"))
/// ```
public struct BatchConfiguration: Sendable {
    /// Jobs in flight at once, over all hosts.
    public var concurrency = 16
    /// Jobs in flight at once for one host.
    public var perHost = 2
    /// The least time between two request starts to one host.
    public var delay: Duration = .zero
    /// Adapt each host's delay to its latency, like Scrapy's AutoThrottle.
    public var autothrottle = false
    /// With ``autothrottle``: requests one host should have in flight on average.
    public var autothrottleTarget: Double = 1.0
    /// The longest delay autothrottle or a `Retry-After` may impose between requests.
    public var maxDelay: Duration = .seconds(60)
    /// Further attempts after a transient failure (connect errors, timeouts, 5xx, 429).
    public var retries = 3
    /// The first backoff; each further retry doubles it, with full jitter.
    public var backoff: Duration = .seconds(1)
    /// The longest backoff or `Retry-After` honoured; a longer one waits this long.
    public var maxBackoff: Duration = .seconds(600)
    /// Ask each host's `/robots.txt` first and skip what it disallows.
    public var robots = false
    /// The on-disk HTTP cache, if any.
    public var cache: Cache?
    /// Input lines longer than this many bytes fail as over-long.
    public var maxLineLength = 8192
    /// Lines read into the store per transaction.
    public var intakeChunk = 2000
    /// How libcurl fetches (timeouts, user agent, `connectTo`).
    public var loader = LoaderConfiguration(timeout: .seconds(30))
    /// Speak plain HTTP where a URL says https (a local mirror behind `connectTo`).
    public var plainHTTP = false

    public init() {}

    /// Where the HTTP cache lives and how requests use it.
    public struct Cache: Sendable {
        public var directory: URL
        public var policy: CachePolicy

        public init(directory: URL, policy: CachePolicy = .useProtocolPolicy) {
            self.directory = directory
            self.policy = policy
        }
    }
}
