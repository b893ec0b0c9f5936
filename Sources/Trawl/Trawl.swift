import Foundation
import Logging
import TrawlBrowser
import TrawlCore
import TrawlEngines
import TrawlFetch
import TrawlHTML
import TrawlIndex
import TrawlParsers
import TrawlRecordings

/// The composition root: the default environment and provider, assembled from libcurl,
/// libxml2 and the parser chain.
///
/// ```swift
/// let provider = Trawl.makeProvider()
/// for try await set in provider.results(for: Request("https://giphy.com/gifs/…")) {
///     for media in set.media { print(media.url) }
/// }
/// ```
public enum Trawl {
    /// What a default provider is made of.
    public struct Configuration: Sendable {
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

    /// The production environment: libcurl transport, libxml2 scanner, every parser.
    public static func makeEnvironment(_ configuration: Configuration = .init(), logger: Logger = Logger(label: "trawl")) -> Environment {
        var transport: any PayloadTransport = Loader(configuration: configuration.loader, handlers: configuration.schemeHandlers, logger: logger)
        if configuration.plainHTTP { transport = PlainHTTPTransport(base: transport) }
        transport = configuration.fetch.transport(over: transport, clock: configuration.clock, addressPolicy: configuration.loader.addressPolicy)
        var replayTransport: ReplayTransport?
        if let replay = configuration.replay {
            let replaying = ReplayTransport(
                entries: replay.entries, sources: replay.sources, matcher: replay.matcher,
                fallback: replay.fallback == .network ? transport : nil)
            replayTransport = replaying
            transport = replaying
        }
        // Probes go through everything but the recorder: a recording holds what pages are made
        // of, not 64 KiB of each media file (a replay answers a probe from it only when it was
        // recorded some other way).
        let probeTransport = transport
        if let recorder = configuration.recorder {
            transport = RecordingTransport(base: transport, recorder: recorder)
        }
        var environment = Environment(
            transport: transport, scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers),
            clock: configuration.clock, maxFollowUps: configuration.maxFollowUps)
        environment.sink = configuration.sink
        if let probe = configuration.probe { environment.checker = MediaProber(transport: probeTransport, options: probe) }
        if configuration.browser != .never {
            var browser = configuration.browserConfiguration
            if browser.connectTo.isEmpty { browser.connectTo = configuration.loader.connectTo }
            if browser.userAgent == nil { browser.userAgent = configuration.loader.userAgent }
            var interceptors = configuration.browserInterceptors
            if let replayTransport, let replay = configuration.replay {
                // Every request answered from the recording; with no fallback nothing may even
                // resolve a host name.
                interceptors.append(.replaying(from: replayTransport, passingUnmatched: replay.fallback == .network))
                browser.offline = browser.offline || replay.fallback == .none
            }
            let recording = configuration.recorder.map { RequestInterceptor.recording(into: $0, plainHTTP: configuration.plainHTTP) }
            if configuration.loader.addressPolicy.isGuarding {
                // Under an address policy the browser connects nowhere itself: what no interceptor
                // before answered is fetched by a loader under the same policy (every hop checked
                // as its socket opens) and handed to the page, and Chromium resolves nothing.
                browser.offline = true
                var guarded = configuration.loader
                guarded.followsRedirects = false
                interceptors.append(.fetching(through: Loader(configuration: guarded, logger: logger), observe: recording?.observe))
            } else if let recording {
                interceptors.append(recording)
            }
            // The pool starts Chromium on the first page that needs it, never before.
            environment.renderer = AdaptiveRenderer(
                mode: configuration.browser, pool: BrowserPool(configuration: browser, interceptors: interceptors),
                plainHTTP: configuration.plainHTTP && configuration.replay == nil)
        }
        return environment
    }

    /// A provider over `environment`: the web engine for URLs, `!giphy` and `!tenor`, `!local`
    /// when there is a `localIndex`, and `defaultEngine` for plain text.
    public static func makeProvider(environment: Environment, search: Search = Search(), localIndex: MediaIndex? = nil) -> SearchProvider {
        var engines: [any Engine] = [GiphySearchEngine(apiKey: search.giphyKey), TenorSearchEngine(apiKey: search.tenorKey), RedgifsSearchEngine()]
        if let localIndex { engines.append(LocalEngine(index: localIndex)) }
        // A key that searches a site also looks up what its pasted files belong to (a Tenor post).
        let keys = SiteKeys(["tenor": search.tenorKey].compactMapValues { $0 })
        return SearchProvider(environment: environment, webEngine: WebEngine(keys: keys), engines: engines, defaultEngine: search.defaultEngine)
    }

    /// A provider over the production environment.
    public static func makeProvider(_ configuration: Configuration = .init(), logger: Logger = Logger(label: "trawl")) -> SearchProvider {
        makeProvider(
            environment: makeEnvironment(configuration, logger: logger), search: replaySearch(configuration),
            localIndex: configuration.localIndex)
    }

    /// The configuration's search keys; in a replay, a placeholder for each missing one (keys are
    /// scrubbed from recordings and ignored when matching: any key replays).
    static func replaySearch(_ configuration: Configuration) -> Search {
        var search = configuration.search
        if configuration.replay != nil {
            search.giphyKey = search.giphyKey ?? Scrubber.placeholder
            search.tenorKey = search.tenorKey ?? Scrubber.placeholder
        }
        return search
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
}
