public import Logging
import TrawlBrowser
import TrawlCore
import TrawlEngines
import TrawlFetch
import TrawlHTML
import TrawlIndex
import TrawlParsers
import TrawlRecordings

/// The composition root: a provider assembled from libcurl, libxml2, the parser chain and the
/// engines.
///
/// ```swift
/// let provider = SearchProvider()
/// for try await set in provider.results(for: Request("https://giphy.com/gifs/…")) {
///     for media in set.media { print(media.url) }
/// }
/// ```
extension SearchProvider {
    /// A provider over `environment`: the web engine for URLs, `!giphy` and `!tenor`, `!local`
    /// when there is a `localIndex`, and `defaultEngine` for plain text.
    public init(environment: Environment, search: TrawlConfiguration.Search = .init(), localIndex: MediaIndex? = nil) {
        var engines: [any Engine] = [GiphySearchEngine(apiKey: search.giphyKey), TenorSearchEngine(apiKey: search.tenorKey), RedgifsSearchEngine()]
        if let localIndex { engines.append(LocalEngine(index: localIndex)) }
        // A key that searches a site also looks up what its pasted files belong to (a Tenor post).
        let keys = SiteKeys(["tenor": search.tenorKey].compactMapValues { $0 })
        self.init(environment: environment, webEngine: WebEngine(keys: keys), engines: engines, defaultEngine: search.defaultEngine)
    }

    /// A provider over the production environment.
    public init(_ configuration: TrawlConfiguration = .init(), logger: Logger = Logger(label: "trawl")) {
        self.init(
            environment: Environment(configuration, logger: logger), search: configuration.searchForReplay,
            localIndex: configuration.localIndex)
    }
}
