import Foundation
import TrawlCore
import TrawlParsers

/// Resolves a page URL: fetches it, runs each payload (the document, then every JSON payload
/// cut out of it) through the parser chain as it arrives, follows the page's oEmbed link when
/// nothing structured answered, and falls back to scanning the raw text last.
public struct WebEngine: Engine {
    public let name = "web"
    public var aliases: [String] { ["url"] }

    public init() {}

    public func handler(for request: Request) throws -> Handler {
        // `!web file:///page.html` names the engine outright: any URL with a scheme will do.
        let explicit = URL(string: request.query.term).flatMap { $0.scheme == nil ? nil : $0 }
        guard let url = request.query.url ?? explicit else {
            throw SearchError(.invalidRequest, "'\(request.query.raw)' is not a URL with a scheme and a host")
        }
        return Handler { environment, continuation in
            try await Self.resolve(url, request: request, environment: environment, continuation: continuation)
        }
    }

    /// Drives a ``PageResolution`` through its steps, doing the IO between them: the site's
    /// source, the page (fetched, or rendered at once for a host known to need it), the render
    /// decision, oEmbed links, then the fallback.
    static func resolve(_ url: URL, request: Request, environment: Environment, continuation: Handler.Continuation) async throws {
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
            for target in site.sources(for: url) {
                try await read(environment.payloads(for: target, from: request), into: { $0.readSiteSource($1, site: site.name) },
                               failed: { $0.siteSourceFailed(target.url, site: site.name, error: $1) })
            }
            if page.siteSourceAnswered { return }
        }

        let renderer = environment.renderer
        let plan = await renderer?.plan(for: url) ?? .fetchFirst
        let fetch = FetchRequest(url: url)
        if plan == .renderDirectly {
            try await read(environment.renderedPayloads(for: fetch, from: request), into: { $0.read($1) })
        } else {
            try await read(environment.payloads(for: fetch, from: request), into: { $0.read($1) })
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
