import Foundation
import TrawlCore
import TrawlParsers

/// Resolves a page URL: fetches it, runs each payload (the document, then every JSON payload
/// cut out of it) through the parser chain as it arrives, follows the page's oEmbed link when
/// nothing structured answered, and falls back to scanning the raw text last.
public struct WebEngine: Engine {
    public let name = "web"
    public var aliases: [String] { ["url"] }

    /// Tokens of sites whose API wants one (``SiteToken``), kept for this engine's run.
    let tokens = SiteTokens()
    /// The API keys the user configured for sites whose source takes one (Tenor's).
    public var keys: SiteKeys

    public init(keys: SiteKeys = SiteKeys()) {
        self.keys = keys
    }

    public func handler(for request: Request) throws -> Handler {
        // `!web file:///page.html` names the engine outright: any URL with a scheme will do.
        let explicit = URL(string: request.query.term).flatMap { $0.scheme == nil ? nil : $0 }
        guard let url = request.query.url ?? explicit else {
            throw SearchError(.invalidRequest, "'\(request.query.raw)' is not a URL with a scheme and a host")
        }
        let tokens = self.tokens, keys = self.keys
        return Handler { environment, continuation in
            try await Self.resolve(url, request: request, environment: environment, tokens: tokens, keys: keys, continuation: continuation)
        }
    }

    /// Drives a ``PageResolution`` through its steps, doing the IO between them: the site's
    /// source, the page (fetched, or rendered at once for a host known to need it), the render
    /// decision, oEmbed links, then the fallback.
    /// - Parameter hops: how many times a redirect handed the page over to another site's
    ///   source already (``PageResolution/handOver(from:to:)``); bounded.
    static func resolve(
        _ url: URL, request: Request, environment: Environment, tokens: SiteTokens = SiteTokens(), keys: SiteKeys = SiteKeys(),
        hops: Int = 0, continuation: Handler.Continuation
    ) async throws {
        var page = PageResolution(url: url, request: request, parsers: environment.parsers, maxFollowUps: environment.maxFollowUps)
        func send() { for set in page.take() { continuation.yield(set) } }
        /// Reads every payload `fetch` yields into `step`; a failure other than cancellation goes
        /// to `failed` (or is thrown when there is none).
        func read(
            _ payloads: AsyncThrowingStream<Payload, any Error>, into step: (inout PageResolution, Payload) -> Void,
            failed: ((inout PageResolution, any Error) -> Void)? = nil
        ) async throws {
            do {
                for try await payload in payloads {
                    step(&page, payload)
                    send()
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                guard let failed else { throw error }
                try Task.checkCancellation()
                failed(&page, error)
                send()
            }
        }

        if let site = Sites.site(for: url) {
            if let note = site.unaskedSource(for: url, keys: keys) { page.noteUnaskedSource(note, site: site.name) }
            // Sources in the site's order of preference: the first that answers is enough.
            for source in site.sources(for: url, keys: keys) where !page.siteSourceAnswered {
                guard let token = site.token else {
                    try await read(environment.payloads(for: source, from: request), into: { $0.readSiteSource($1, site: site.name) },
                                   failed: { $0.siteSourceFailed(source.url, site: site.name, error: $1) })
                    continue
                }
                // A token older than the source's patience answers 401: fetched anew once.
                for attempt in 0..<2 {
                    let value: String
                    do {
                        value = try await tokens.token(for: site.name) { try await Self.fetchToken(token, site: site.name, environment: environment, request: request) }
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        page.siteSourceFailed(source.url, site: site.name, error: error)
                        send()
                        break
                    }
                    let authorized = token.authorizing(source, with: value)
                    var expired = false
                    try await read(environment.payloads(for: authorized, from: request), into: { page, payload in
                        if payload.info.status == 401, attempt == 0 { expired = true } else { page.readSiteSource(payload, site: site.name) }
                    }, failed: { $0.siteSourceFailed(source.url, site: site.name, error: $1) })
                    guard expired else { break }
                    await tokens.expire(value, of: site.name)
                }
            }
            if page.siteSourceAnswered {
                // An answer of nothing can still be an error (a source that says nothing is public).
                let failure = page.finish()
                send()
                if let failure { throw failure }
                return
            }
        }

        let renderer = environment.renderer
        let plan = await renderer?.plan(for: url) ?? .fetchFirst
        let fetch = FetchRequest(url: url)
        if plan == .renderDirectly {
            try await read(environment.renderedPayloads(for: fetch, from: request), into: { $0.read($1) })
        } else {
            // A short link (`t.co`, `gph.is`, `v.redd.it`) redirects to a page another site reads
            // better from its own source: the page is handed over to that site, unread.
            var handOver: URL?
            try await read(environment.payloads(for: fetch, from: request), into: { page, payload in
                guard handOver == nil else { return }
                if payload.info.origin == .document, hops < maxHandOvers, let target = PageResolution.handOver(from: url, to: payload.info.url) {
                    handOver = target
                    return
                }
                page.read(payload)
            })
            if let handOver {
                continuation.yield(ResultSet(diagnostics: [
                    Diagnostic(.info, "\(Redaction.url(url.absoluteString)) redirected to \(Redaction.url(handOver.absoluteString)): read by its site", source: "web"),
                ]))
                try await resolve(handOver, request: request, environment: environment, tokens: tokens, keys: keys, hops: hops + 1, continuation: continuation)
                return
            }
            let decision = page.renderDecision(canRender: renderer != nil)
            send()
            if let renderer {
                switch decision {
                case .none: break
                case .notNeeded: await renderer.learn(url: url, neededBrowser: false)
                case .ask(let document):
                    let needed = await renderer.shouldRender(afterStatic: document, url: url)
                    var renderFailed = false
                    if needed {
                        try await read(environment.renderedPayloads(for: fetch, from: request), into: { $0.read($1) },
                                       failed: { renderFailed = true; $0.renderFailed($1) })
                    }
                    // A failed render says nothing about whether the host's pages need the browser.
                    if !renderFailed { await renderer.learn(url: url, neededBrowser: needed && page.foundAnything) }
                }
            }
        }

        for link in page.afterPage() {
            send()
            try await read(environment.payloads(for: FetchRequest(url: link), from: request), into: { $0.readOEmbed($1) },
                           failed: { $0.oEmbedFailed($1) })
        }
        let failure = page.finish()
        send()
        if let failure { throw failure }
    }
}

extension WebEngine {
    /// How many redirects may hand a page over to another site's source in one resolve.
    static let maxHandOvers = 2

    /// A site's token, fetched from its endpoint.
    static func fetchToken(_ token: SiteToken, site: String, environment: Environment, request: Request) async throws -> String {
        for try await payload in environment.payloads(for: FetchRequest(url: token.url), from: request) {
            guard let value = token.read(payload) else {
                throw SiteTokenError(site: site, url: token.url.absoluteString, reason: payload.info.isSuccess ? "no \(token.field) in the answer" : "HTTP \(payload.info.status)")
            }
            return value
        }
        throw SiteTokenError(site: site, url: token.url.absoluteString, reason: "no answer")
    }

    /// Parsers that read what a page shows (its `<img>` and `<video>` elements) rather than
    /// what it names as its item.
    static let shownParsers: Set<String> = [HTML5MediaParser().name]

    /// How the warning begins when rendering a page that looked script-driven failed and its
    /// static result stands.
    public static let renderFailedPrefix = "rendering failed, the static result stands: "

    /// The warning for a document whose markup libxml2 stopped reading part way.
    static func scanStopped(_ stop: ScanStop, payload: Payload) -> Diagnostic {
        Diagnostic(
            .warning,
            "libxml2 gave up on the HTML of \(Redaction.url(payload.info.url.absoluteString)) (\(stop.reason)): what it read stands, and bytes \(stop.offset)–\(payload.body.count) were read as text",
            source: "html")
    }

    /// Whether a page describes itself by a still (`og:image` / `twitter:image` a JPEG, PNG…)
    /// and declares no video.
    static func isAboutAStill(_ summary: DocumentSummary) -> Bool {
        guard summary.firstMeta("og:video") == nil, summary.firstMeta("og:video:url") == nil,
              summary.firstMeta("twitter:player:stream") == nil, summary.firstMeta("og:type")?.hasPrefix("video") != true,
              let image = summary.firstMeta("og:image") ?? summary.firstMeta("twitter:image") ?? summary.firstMeta("twitter:image:src"),
              let resolved = summary.resolve(image) else { return false }
        return MediaKind(urlString: resolved) == .still
    }
}

/// The page answered with an HTTP error and had no media.
public struct WebError: Error, Sendable, Hashable, CustomStringConvertible {
    public var url: String
    public var status: Int
    public init(url: String, status: Int) {
        self.url = url
        self.status = status
    }
    public var description: String { "HTTP \(status) from \(Redaction.url(url))" }
}

extension WebError: CodedError {
    /// `http-404`, `http-503`, …: the page's status.
    public var errorCode: String { "http-\(status)" }
}
