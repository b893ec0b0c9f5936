import Logging
import TrawlCore
import TrawlFetch
import TrawlHTML
import TrawlParsers

/// The composition root: the default environment and provider, assembled from libcurl,
/// libxml2 and the parser chain.
///
/// ```swift
/// let provider = Trawl.makeProvider()
/// for try await set in await provider.results(for: Request("https://giphy.com/gifs/…")) {
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

        public init(loader: LoaderConfiguration = .init(), schemeHandlers: [any SchemeHandler] = [], maxFollowUps: Int = 2) {
            self.loader = loader
            self.schemeHandlers = schemeHandlers
            self.maxFollowUps = maxFollowUps
        }
    }

    /// The production environment: libcurl transport, libxml2 scanner, every parser.
    public static func makeEnvironment(_ configuration: Configuration = .init(), logger: Logger = Logger(label: "trawl")) -> Environment {
        Environment(
            transport: Loader(configuration: configuration.loader, handlers: configuration.schemeHandlers, logger: logger),
            scanner: HTMLScanner(), parsers: GenericParsers.chain(), maxFollowUps: configuration.maxFollowUps)
    }

    /// A provider over `environment` with the web engine.
    public static func makeProvider(environment: Environment) -> SearchProvider {
        SearchProvider(environment: environment, webEngine: WebEngine())
    }

    /// A provider over the production environment.
    public static func makeProvider(_ configuration: Configuration = .init(), logger: Logger = Logger(label: "trawl")) -> SearchProvider {
        makeProvider(environment: makeEnvironment(configuration, logger: logger))
    }
}
