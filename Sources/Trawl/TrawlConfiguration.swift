public import Foundation
import TrawlBrowser
import TrawlCore
import TrawlFetch
import TrawlIndex
import TrawlRecordings

/// What the production environment and provider are made of: the loader, the replay or the
/// recorder, the fetch policy, the browser, the search keys, the local index.
///
/// ```swift
/// var configuration = TrawlConfiguration()
/// configuration.search = TrawlConfiguration.Search(giphyKey: myKey, defaultEngine: "giphy")
/// let provider = SearchProvider(configuration)
/// ```
public struct TrawlConfiguration: Sendable {
    public var loader: LoaderConfiguration
    /// More scheme handlers (replay, test schemes).
    public var schemeHandlers: [any SchemeHandler]
    /// Follow-up fetches one page may cause.
    public var maxFollowUps: Int
    /// Serve requests from recordings instead of the network.
    public var replay: Replay?
    /// Record every payload of the run (scrubbed) here.
    public var recorder: HARRecorder?
    /// Search engine keys and the default engine.
    public var search: Search = Search()
    /// Speak plain HTTP where a URL says https (a local mirror behind `connectTo`).
    public var plainHTTP = false
    /// The cache, retries, `Retry-After` and per-host politeness of network requests
    /// (not of replayed ones). The default sends each request once, as asked.
    public var fetch: FetchPolicy = .once
    /// What the fetch policy's waits are measured on, and the environment's clock.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// When pages are rendered in headless Chromium (`never` for a library caller unless
    /// asked; the `trawl` command defaults to `auto`). With ``replay``, the browser's requests
    /// are answered from the recording (an unrecorded one fails unless the fallback is the
    /// network); with ``recorder``, its responses are recorded with the static fetches.
    public var browser: BrowserMode = .never
    /// How the browser runs; its `connectTo` and user agent default to the loader's.
    public var browserConfiguration = BrowserConfiguration()
    /// Asked first about every request the browser's pages make, before the replay's and the
    /// recorder's own interceptors. Under an address policy (`LoaderConfiguration.addressPolicy`)
    /// what none of them answers is fetched through the guard, never by the browser.
    public var browserInterceptors: [RequestInterceptor] = []
    /// The local index `!local` searches; `nil`: no `!local` engine.
    public var localIndex: MediaIndex?
    /// `--probe`: each media URL checked with a ranged GET for its first bytes before its
    /// result set is handed on (``MediaProber``); `nil`: media as the pages claim them.
    public var probe: MediaProber.Options?
    /// Bytes as evidence (`BytesEvidence`): the images a page shows without its markup saying
    /// what they are — no size, no media host, no larger file beside them — are read for their
    /// first bytes when the page is an article or a listing or names nothing, and kept when those
    /// prove an animation well above icon size. Through the same transport as the page (the
    /// address guard, politeness, the cache). On by default; `nil` turns it off.
    public var bytesEvidence: BytesEvidenceLimits? = BytesEvidenceLimits()

    /// How much reading bytes as evidence may cost a page.
    public struct BytesEvidenceLimits: Sendable, Hashable {
        /// Files read per page at most.
        public var maxCandidates = 12
        /// How long a page waits for them in all.
        public var budget: Duration = .seconds(3)

        public init() {}
    }
    /// Told what every request found when its stream ends: an `IndexWriter` keeps the
    /// local index up to date. `nil` (the default, and right for replays and tests that
    /// should leave no trace): nothing is recorded.
    public var sink: (any ExtractionSink)?

    public init(
        loader: LoaderConfiguration = .init(), schemeHandlers: [any SchemeHandler] = [], maxFollowUps: Int = 2,
        replay: Replay? = nil, recorder: HARRecorder? = nil
    ) {
        self.loader = loader
        self.schemeHandlers = schemeHandlers
        self.maxFollowUps = maxFollowUps
        self.replay = replay
        self.recorder = recorder
    }

    /// Where a replay reads and what it does with requests it has no recording for.
    public struct Replay: Sendable {
        public enum Fallback: String, Sendable, CaseIterable {
            /// An unrecorded request is an error naming it (the default: tests never go online).
            case none
            /// An unrecorded request goes to the network.
            case network
        }

        public var entries: [HAREntry]
        public var sources: [String]
        public var fallback: Fallback
        public var matcher: ReplayMatcher

        public init(entries: [HAREntry], sources: [String] = [], fallback: Fallback = .none, matcher: ReplayMatcher = ReplayMatcher()) {
            self.entries = entries
            self.sources = sources
            self.fallback = fallback
            self.matcher = matcher
        }

        /// Every entry of a `.har` file, or of every `.har` under a folder.
        public init(path: URL, fallback: Fallback = .none, matcher: ReplayMatcher = ReplayMatcher()) throws {
            let (entries, sources) = try ReplayTransport.entries(at: path)
            self.init(entries: entries, sources: sources, fallback: fallback, matcher: matcher)
        }
    }

    /// The search engines' keys and which engine answers plain text.
    public struct Search: Sendable {
        public var giphyKey: String?
        public var tenorKey: String?
        public var defaultEngine: String

        /// Keys are given, never read from the environment here: only the `trawl` command reads
        /// `TRAWL_GIPHY_KEY`, `TRAWL_TENOR_KEY` and `TRAWL_DEFAULT_ENGINE`, and passes them down.
        public init(giphyKey: String? = nil, tenorKey: String? = nil, defaultEngine: String = "tenor") {
            self.giphyKey = giphyKey
            self.tenorKey = tenorKey
            self.defaultEngine = defaultEngine
        }
    }

    /// ``search``; in a replay, with a placeholder for each missing key (keys are scrubbed from
    /// recordings and ignored when matching: any key replays).
    public var searchForReplay: Search {
        var search = self.search
        if replay != nil {
            search.giphyKey = search.giphyKey ?? Scrubber.placeholder
            search.tenorKey = search.tenorKey ?? Scrubber.placeholder
        }
        return search
    }
}
