import Foundation
package import TrawlCore
package import TrawlParsers

/// Resolves a page URL: fetches it, runs each payload (the document, then every JSON payload
/// cut out of it) through the parser chain as it arrives, follows the page's oEmbed link when
/// nothing structured answered, and falls back to scanning the raw text last.
package struct WebEngine: Engine {
    package let name = "web"
    package var aliases: [String] { ["url"] }

    /// Tokens of sites whose API wants one (``SiteToken``), kept for this engine's run.
    let tokens = SiteTokens()
    /// The API keys the user configured for sites whose source takes one (Tenor's).
    package var keys: SiteKeys

    package init(keys: SiteKeys = SiteKeys()) {
        self.keys = keys
    }

    package func handler(for request: Request) throws -> Handler {
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
        var run = PageResolutionRun(url: url, request: request, environment: environment, tokens: tokens, keys: keys, continuation: continuation)
        if let site = Sites.site(for: url) {
            try await run.readSiteSources(of: site)
            // An answer of nothing can still be an error (a source that says nothing is public).
            if run.page.siteSourceAnswered { return try run.finish() }
        }
        let renderer = environment.renderer
        if await renderer?.plan(for: url) == .renderDirectly {
            try await run.readRendered()
        } else {
            if let target = try await run.readPage(mayHandOver: hops < maxHandOvers) {
                continuation.yield(
                    ResultSet(diagnostics: [
                        Diagnostic(
                            .info, "\(Redaction.url(url.absoluteString)) redirected to \(Redaction.url(target.absoluteString)): read by its site", source: "web"
                        )
                    ]))
                return try await resolve(
                    target, request: request, environment: environment, tokens: tokens, keys: keys, hops: hops + 1, continuation: continuation)
            }
            try await run.renderIfNeeded(by: renderer)
        }
        try await run.followOEmbedLinks()
        await run.readBytes()
        try Task.checkCancellation()
        try run.finish()
    }
}

extension WebEngine {
    /// How many redirects may hand a page over to another site's source in one resolve.
    static let maxHandOvers = 2

    /// A site's token, fetched from its endpoint.
    static func fetchToken(_ token: SiteToken, site: String, environment: Environment, request: Request) async throws -> String {
        for try await payload in environment.payloads(for: FetchRequest(url: token.url), from: request) {
            guard let value = token.read(payload) else {
                throw SiteTokenError(
                    site: site, url: token.url.absoluteString,
                    reason: payload.info.isSuccess ? "no \(token.field) in the answer" : "HTTP \(payload.info.status)")
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
    package static let renderFailedPrefix = "rendering failed, the static result stands: "

    /// The warning for a document whose markup libxml2 stopped reading part way.
    static func scanStopped(_ stop: ScanStop, payload: Payload) -> Diagnostic {
        Diagnostic(
            .warning,
            "libxml2 gave up on the HTML of \(Redaction.url(payload.info.url.absoluteString)) (\(stop.reason)): what it read stands, and bytes \(stop.offset)–\(payload.bodyLength) were read as text",
            source: "html")
    }

    /// Whether a page describes itself by a still (`og:image` / `twitter:image` a JPEG, PNG…)
    /// and declares no video.
    static func isAboutAStill(_ summary: DocumentSummary) -> Bool {
        guard summary.firstMeta("og:video") == nil, summary.firstMeta("og:video:url") == nil,
            summary.firstMeta("twitter:player:stream") == nil, summary.firstMeta("og:type")?.hasPrefix("video") != true,
            let image = summary.firstMeta("og:image") ?? summary.firstMeta("twitter:image") ?? summary.firstMeta("twitter:image:src"),
            let resolved = summary.resolve(image)
        else { return false }
        return MediaKind(urlString: resolved) == .still
    }
}

/// The page answered with an HTTP error and had no media.
package struct WebError: Error, Sendable, Hashable, CustomStringConvertible {
    package var url: String
    package var status: Int
    package init(url: String, status: Int) {
        self.url = url
        self.status = status
    }
    package var description: String { "HTTP \(status) from \(Redaction.url(url))" }
}

extension WebError: CodedError {
    /// `http-404`, `http-503`, …: the page's status.
    package var errorCode: String { "http-\(status)" }
}
