import Foundation
public import Logging
import TrawlBrowser
import TrawlCore
import TrawlEngines
import TrawlFetch
import TrawlHTML
import TrawlIndex
import TrawlParsers
import TrawlRecordings

extension Environment {
    /// The production environment: libcurl transport, libxml2 scanner, every parser.
    public init(_ configuration: TrawlConfiguration, logger: Logger = Logger(label: "trawl")) {
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
        if let limits = configuration.bytesEvidence {
            environment.bytesEvidence = BytesEvidence(
                reader: MediaProber(transport: probeTransport), maxCandidates: limits.maxCandidates, budget: limits.budget)
        }
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
        self = environment
    }
}
