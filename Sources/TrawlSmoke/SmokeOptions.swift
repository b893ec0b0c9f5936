public import Trawl

/// How a smoke run is made.
public struct SmokeOptions: Sendable {
    /// Only these sites (folder names); empty for all.
    public var sites: Set<String> = []
    /// Replay the recordings instead of going live.
    public var replay = false
    /// Rewrite (or first write) the recordings of cases that passed live.
    public var record = false
    /// Time allowed for each request.
    public var timeout: Duration = .seconds(30)
    /// Extra attempts for a case whose site looked down.
    public var retries = 1
    /// The User-Agent header live runs send.
    public var userAgent = LoaderConfiguration.defaultUserAgent
    /// `HOST:PORT:TO_HOST:TO_PORT`, as curl's `--connect-to`.
    public var connectTo: [String] = []
    /// Speak plain HTTP to every host (for a local mirror behind `connectTo`).
    public var plainHTTP = false
    /// Which addresses live runs may connect to (``AddressPolicy/allowAll`` unless asked).
    public var addressPolicy: AddressPolicy = .allowAll
    /// The search engines' keys: a live `!giphy` / `!tenor` case without its key is skipped.
    public var search: TrawlConfiguration.Search
    /// When live pages are rendered in headless Chromium. A case that needs a browser gets one
    /// (`auto` unless this says `always`), replayed or live; other replayed cases never start one.
    public var browser: BrowserMode = .never
    public var browserConfiguration = BrowserConfiguration()
    /// `--probe`: each media a live case finds checked with a ranged GET (``MediaProber``); a
    /// case with a dead media (`404`, `410`, a page where media was promised) fails. Dead media
    /// are always kept here (``MediaProber/Options/keepDead`` is ignored): they are what the
    /// case is failed for. Probes are not recorded. `nil`: not probed.
    public var probe: MediaProber.Options?
    /// Told what each live case found (the local index's writer); replays record nothing.
    public var sink: (any ExtractionSink)?

    /// - Parameter search: the keys; the CLI reads them from `TRAWL_GIPHY_KEY` / `TRAWL_TENOR_KEY`.
    public init(search: TrawlConfiguration.Search = TrawlConfiguration.Search(giphyKey: nil, tenorKey: nil)) {
        self.search = search
    }
}
