package import Trawl

/// How a smoke run is made.
package struct SmokeOptions: Sendable {
    /// Only these sites (folder names); empty for all.
    package var sites: Set<String> = []
    /// Replay the recordings instead of going live.
    package var replay = false
    /// Rewrite (or first write) the recordings of cases that passed live.
    package var record = false
    /// Time allowed for each request.
    package var timeout: Duration = .seconds(30)
    /// Extra attempts for a case whose site looked down.
    package var retries = 1
    /// The User-Agent header live runs send.
    package var userAgent = LoaderConfiguration.defaultUserAgent
    /// `HOST:PORT:TO_HOST:TO_PORT`, as curl's `--connect-to`.
    package var connectTo: [String] = []
    /// Speak plain HTTP to every host (for a local mirror behind `connectTo`).
    package var plainHTTP = false
    /// Which addresses live runs may connect to (``AddressPolicy/allowAll`` unless asked).
    package var addressPolicy: AddressPolicy = .allowAll
    /// The search engines' keys: a live `!giphy` / `!tenor` case without its key is skipped.
    package var search: TrawlConfiguration.Search
    /// When live pages are rendered in headless Chromium. A case that needs a browser gets one
    /// (`auto` unless this says `always`), replayed or live; other replayed cases never start one.
    package var browser: BrowserMode = .never
    package var browserConfiguration = BrowserConfiguration()
    /// `--probe`: each media a live case finds checked with a ranged GET (``MediaProber``); a
    /// case with a dead media (`404`, `410`, a page where media was promised) fails. Dead media
    /// are always kept here (``MediaProber/Options/keepDead`` is ignored): they are what the
    /// case is failed for. Probes are not recorded. `nil`: not probed.
    package var probe: MediaProber.Options?
    /// Told what each live case found (the local index's writer); replays record nothing.
    package var sink: (any ExtractionSink)?

    /// - Parameter search: the keys; the CLI reads them from `TRAWL_GIPHY_KEY` / `TRAWL_TENOR_KEY`.
    package init(search: TrawlConfiguration.Search = TrawlConfiguration.Search(giphyKey: nil, tenorKey: nil)) {
        self.search = search
    }
}
