import Foundation
import TrawlCore
import TrawlParsers

/// One page's resolution with its IO: each method fetches, renders or asks for one step of a
/// ``PageResolution`` and sends the result sets that step produced. ``WebEngine`` calls them in
/// order; the rules live in ``PageResolution``, which does no IO.
struct PageResolutionRun {
    private(set) var page: PageResolution
    let url: URL
    let request: Request
    let environment: Environment
    let tokens: SiteTokens
    let keys: SiteKeys
    let continuation: Handler.Continuation

    init(url: URL, request: Request, environment: Environment, tokens: SiteTokens, keys: SiteKeys, continuation: Handler.Continuation) {
        page = PageResolution(url: url, request: request, parsers: environment.parsers, maxFollowUps: environment.maxFollowUps)
        self.url = url
        self.request = request
        self.environment = environment
        self.tokens = tokens
        self.keys = keys
        self.continuation = continuation
    }

    /// Step 1: the site's sources in its order of preference; the first that answers is enough.
    mutating func readSiteSources(of site: any Site) async throws {
        if let note = site.unaskedSource(for: url, keys: keys) { page.noteUnaskedSource(note, site: site.name) }
        for source in site.sources(for: url, keys: keys) where !page.siteSourceAnswered {
            if let token = site.token {
                try await readSource(source, of: site.name, authorizedBy: token)
            } else {
                try await read(
                    environment.payloads(for: source, from: request), into: { $0.readSiteSource($1, site: site.name) },
                    failed: { $0.siteSourceFailed(source.url, site: site.name, error: $1) })
            }
        }
    }

    /// A source that wants the site's token. A token older than the source's patience answers
    /// 401: it is fetched anew once.
    private mutating func readSource(_ source: FetchRequest, of site: String, authorizedBy token: SiteToken) async throws {
        for attempt in 0..<2 {
            let value: String
            do {
                value = try await tokens.token(for: site) { [environment, request] in
                    try await WebEngine.fetchToken(token, site: site, environment: environment, request: request)
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                page.siteSourceFailed(source.url, site: site, error: error)
                send()
                return
            }
            var expired = false
            try await read(
                environment.payloads(for: token.authorizing(source, with: value), from: request),
                into: { page, payload in
                    if payload.info.status == 401, attempt == 0 { expired = true } else { page.readSiteSource(payload, site: site) }
                }, failed: { $0.siteSourceFailed(source.url, site: site, error: $1) })
            guard expired else { return }
            await tokens.expire(value, of: site)
        }
    }

    /// Step 2, for a host known to need the browser: the page rendered at once.
    mutating func readRendered() async throws {
        try await read(environment.renderedPayloads(for: FetchRequest(url: url), from: request), into: { $0.read($1) })
    }

    /// Step 2: the page fetched; a large document's start is read while the rest arrives. A short link (`t.co`, `gph.is`, `v.redd.it`) redirects to a page
    /// another site reads better from its own source: when `mayHandOver`, the page is left unread
    /// and the address it landed on is returned, for that site.
    mutating func readPage(mayHandOver: Bool) async throws -> URL? {
        var handOver: URL?
        try await read(
            environment.payloads(for: FetchRequest(url: url), from: request, documentStarts: true),
            into: { [url] page, payload in
                guard handOver == nil else { return }
                if payload.info.origin == .document, mayHandOver, let target = PageResolution.handOver(from: url, to: payload.info.url) {
                    handOver = target
                    return
                }
                if payload.isDocumentStart { page.readStart(payload) } else { page.read(payload) }
            })
        return handOver
    }

    /// Step 3: the render decision, and the render when the renderer says the page needs it.
    mutating func renderIfNeeded(by renderer: (any PageRenderer)?) async throws {
        let decision = page.renderDecision(canRender: renderer != nil)
        send()
        guard let renderer else { return }
        switch decision {
        case .none: break
        case .notNeeded: await renderer.learn(url: url, neededBrowser: false)
        case .ask(let document):
            let needed = await renderer.shouldRender(afterStatic: document, url: url)
            var renderFailed = false
            if needed {
                try await read(
                    environment.renderedPayloads(for: FetchRequest(url: url), from: request), into: { $0.read($1) },
                    failed: {
                        renderFailed = true; $0.renderFailed($1)
                    })
            }
            // A failed render says nothing about whether the host's pages need the browser.
            if !renderFailed { await renderer.learn(url: url, neededBrowser: needed && page.foundAnything) }
        }
    }

    /// Step 4: what the page shows, then its oEmbed links while nothing answered.
    mutating func followOEmbedLinks() async throws {
        for link in page.afterPage() {
            send()
            try await read(
                environment.payloads(for: FetchRequest(url: link), from: request), into: { $0.readOEmbed($1) },
                failed: { $0.oEmbedFailed($1) })
        }
    }

    /// Step 4½: the images the markup could not decide, read for their first bytes within the
    /// environment's budget (``BytesEvidence``); nothing when the environment reads no bytes or
    /// the page is not a web page (a saved file).
    mutating func readBytes() async {
        // A page read from disk is read as saved: its images are not fetched for it.
        guard let evidence = environment.bytesEvidence, ["http", "https"].contains(url.scheme?.lowercased()) else { return }
        let candidates = page.bytesCandidates(limit: evidence.maxCandidates)
        guard !candidates.isEmpty else { return }
        let probes = await evidence.read(candidates.map(\.url), for: request, clock: environment.clock)
        page.readBytes(candidates, probes: probes)
        send()
    }

    /// Step 5: the fallback, then the error when nothing at all was found.
    mutating func finish() throws {
        let failure = page.finish()
        send()
        if let failure { throw failure }
    }

    private mutating func send() {
        for set in page.take() { continuation.yield(set) }
    }

    /// Reads every payload of `payloads` into `step`; a failure other than cancellation goes to
    /// `failed` (or is thrown when there is none).
    private mutating func read(
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
}
