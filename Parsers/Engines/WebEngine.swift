import Foundation
import TrawlCore

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

    static func resolve(_ url: URL, request: Request, environment: Environment, continuation: Handler.Continuation) async throws {
        var seen = MediaCollection()
        var kept: [Payload] = []
        var oEmbedLinks: [URL] = []
        var documentStatus: Int?
        var documentURL = url
        var snapshotRead = false
        /// A site parser said what the page holds: no guessing from its text afterwards.
        var definitive = false
        /// Site parsers that claimed a payload and failed or found nothing: if anything later
        /// answers, the answer is degraded.
        var siteFailures: [Degradation.Failure] = []

        func noteSiteFailures(_ set: ResultSet, _ payload: Payload) {
            guard set.media.isEmpty, !set.isDefinitive else { return }
            for parser in environment.parsers.claimants(of: payload.info, stage: .site) {
                let reason = set.diagnostics.first { $0.source == parser.name }?.message ?? "found nothing"
                siteFailures.append(Degradation.Failure(parser: parser.name, reason: reason))
            }
        }

        /// Media emitted early from a rendered page's XHR payloads by the text fallback (below):
        /// they do not count as the page naming its item.
        var streamed = 0
        /// `kept` indexes of payloads the fallback already read.
        var fallbackRead = Set<Int>()
        /// What the page shows answered (held back until the end, below).
        var shownAnswered = false
        /// Nothing but early XHR media emitted so far.
        var nothingNamed: Bool { seen.count == streamed && !shownAnswered }

        /// Stills of the media emitted so far: never a media of their own.
        var stills = Set<String>()
        /// Media the page shows without naming them (its body's images and videos), held until
        /// every payload of the page is read: they answer only if nothing names the page's item.
        var heldBack: ResultSet?
        /// What the text fallback found in the part of a document libxml2 gave up on (see
        /// ``ScanStop``): whether those media are named or merely shown cannot be told, so they
        /// come last, after everything the readable part said.
        var unreadRest: [ResultSet] = []

        /// A media the page names that is also one it shows (its `<video>` in the article) takes
        /// what the shown one adds: its poster, its sources.
        func absorbHeldBack(into media: inout [Media]) {
            guard var held = heldBack, !held.media.isEmpty else { return }
            for index in media.indices {
                let keys = Set(media[index].allURLs.map(CanonicalURL.key))
                let same = held.media.filter { !keys.isDisjoint(with: $0.allURLs.map(CanonicalURL.key)) }
                guard !same.isEmpty else { continue }
                var merged = MediaCollection([media[index]])
                merged.insert(contentsOf: same)
                media[index] = merged.media[0]
                held.media.removeAll { same.contains($0) }
            }
            heldBack = held
        }

        let siteParsers = Set(environment.parsers.parsers.filter { $0.stage == .site }.map(\.name))
        /// Whether the caller asked why each media was kept or dropped.
        let explain = request.explain == true
        /// Candidates the ranking stage dropped, each once (reported with `explain`).
        var dropped = MediaCollection()
        @discardableResult
        func emit(_ set: ResultSet, page: URL) -> Int {
            var set = set
            // A poster or still of one media is not another media.
            for still in set.media.compactMap(\.still) { stills.insert(CanonicalURL.key(still)) }
            set.media.removeAll { stills.contains($0.canonicalKey) }
            // The ranking stage: every candidate of every payload is judged by one set of rules.
            var droppedHere: [Media] = []
            set.media = set.media.compactMap { candidate in
                var media = MediaRanking.preferringTheOriginal(candidate, siteParsers: siteParsers)
                let verdict = MediaRanking.judge(media)
                if explain {
                    media.explanation = verdict
                    media.evidence = MediaRanking.evidence(of: media)
                } else {
                    media.evidence = nil
                }
                guard verdict.verdict == .kept else {
                    droppedHere.append(media)
                    return nil
                }
                return media
            }
            if explain {
                droppedHere = droppedHere.filter { dropped.insert($0) }.map { item in
                    var item = item
                    item.page = page.absoluteString
                    return item
                }
            }
            // After a site parser failed, any other parser's answer is degraded.
            if !set.media.isEmpty, set.degradation == nil, !siteFailures.isEmpty, !set.media.contains(where: { siteParsers.contains($0.provenance.parser) }) {
                set.degradation = Degradation(failures: siteFailures, answeredBy: set.provenance?.parser ?? "generic")
            }
            // Every result of a page belongs to that page, whichever payload it came from.
            for index in set.media.indices { set.media[index].page = page.absoluteString }
            let fresh = set.media.filter { seen.insert($0) }
            if explain, !droppedHere.isEmpty { set.dropped = droppedHere }
            guard !fresh.isEmpty || set.dropped != nil else { return 0 }
            set.media = fresh
            continuation.yield(set)
            return fresh.count
        }

        // A site with a better source than its page (a post's JSON): that first, the page only
        // when it yields nothing.
        if let site = Sites.site(for: url) {
            for target in site.rewrite(url) {
                do {
                    for try await var payload in environment.payloads(for: FetchRequest(url: target), from: request) {
                        guard payload.info.isSuccess else { continue }
                        payload.info.origin = .followUp(reason: "\(site.name) source")
                        kept.append(payload)  // the text fallback reads it too if nothing answers
                        let set = environment.parsers.parse(payload, stages: .structured)
                        definitive = definitive || (set.isDefinitive && set.media.isEmpty)
                        noteSiteFailures(set, payload)
                        emit(set, page: url)
                    }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    continuation.yield(ResultSet(diagnostics: [Diagnostic(.info, "\(site.name) source \(Redaction.url(target.absoluteString)) failed, reading the page: \(error)", source: "web")]))
                }
            }
            if seen.count > 0 || definitive { return }
        }

        /// Reads one payload of the page: the static document or a rendered DOM, and the JSON
        /// embedded in it or caught from its requests.
        func read(_ payload: Payload) {
            // The first DOM snapshot is the page's; later ones are its iframes' (their media are
            // the page's, found in them like in the page).
            let isPage = payload.info.origin == .document || (payload.info.origin == .domSnapshot && !snapshotRead)
            if payload.info.origin == .domSnapshot { snapshotRead = true }
            if isPage {
                documentStatus = payload.info.status
                documentURL = payload.info.url
                if let summary = payload.document {
                    oEmbedLinks += summary.links
                        .filter { $0.rel.contains("alternate") && $0.type == "application/json+oembed" }
                        .compactMap { summary.resolve($0.href).flatMap(URL.init(string:)) }
                }
            }
            kept.append(payload)
            // Once a site parser has said what the page holds, the page's other payloads (its
            // ld+json, its scripts' JSON) go to site parsers only: a generic reading of them
            // finds logos and related items, not more of what the page is about.
            var set = environment.parsers.parse(payload, stages: definitive ? [.site] : .structured)
            definitive = definitive || set.isDefinitive
            noteSiteFailures(set, payload)
            if payload.info.origin == .document || payload.info.origin == .domSnapshot, !set.media.isEmpty {
                set.media = payload.body.withUnsafeBytes {
                    SiblingRenditions.attach(to: set.media, from: $0.bindMemory(to: UInt8.self))
                }
            }
            // The item a page names (its metadata, JSON-LD, its post object) comes first and
            // alone; what its body merely shows waits.
            let shown = set.media.filter { Self.shownParsers.contains($0.provenance.parser) }
            if !shown.isEmpty {
                set.media.removeAll { Self.shownParsers.contains($0.provenance.parser) }
                if heldBack == nil {
                    var held = set
                    held.media = []
                    heldBack = held
                }
                heldBack?.media += shown
            }
            absorbHeldBack(into: &set.media)
            emit(set, page: documentURL)
            if let stop = payload.document?.stop {
                continuation.yield(ResultSet(diagnostics: [Self.scanStopped(stop, payload: payload)]))
                var rest = payload
                rest.body = Data(payload.body.dropFirst(stop.offset))
                rest.document = nil
                unreadRest.append(environment.parsers.parse(rest, stages: .fallback))
            }
            // A rendered page's JSON API answer that nothing structured reads is what the text
            // fallback would read first once the page settled (JSON before documents, below):
            // read now, its media go out as the response arrives instead of after settling.
            if payload.info.origin == .browserXHR, payload.info.isJSON, set.media.isEmpty, !definitive, nothingNamed {
                fallbackRead.insert(kept.count - 1)
                streamed += emit(environment.parsers.parse(payload, stages: .fallback), page: documentURL)
            }
        }

        // A host known to need a browser goes to it at once; any other page is fetched first.
        let plan = await environment.renderer?.plan(for: url) ?? .fetchFirst
        var rendered = false
        if plan == .renderDirectly {
            rendered = true
            for try await payload in environment.renderedPayloads(for: FetchRequest(url: url), from: request) { read(payload) }
        } else {
            for try await payload in environment.payloads(for: FetchRequest(url: url), from: request) { read(payload) }
        }
        if !rendered, let renderer = environment.renderer, seen.count == 0, !definitive, documentStatus.map({ (200..<300).contains($0) }) ?? false {
            // Nothing named or shown statically: a page whose media arrive by script is rendered
            // (what it shows statically, if anything, waits with what it shows rendered).
            let document = kept.first { $0.info.origin == .document }
            var needed = false
            if heldBack?.media.isEmpty ?? true {
                // Every static stage before the decision: the items a state object or a JSON
                // answer of the page carries (`__NEXT_DATA__`, a rehydration blob), read by
                // their structure as the fallback would, answer without a browser.
                let structure = StateMediaParser(.everyItem)
                for payload in kept where structure.canParse(payload.info) {
                    guard let set = try? structure.parse(payload), !set.media.isEmpty else { continue }
                    var found = set
                    found.provenance = Provenance(parser: structure.name, origin: payload.info.origin, payloadURL: payload.info.url.absoluteString)
                    emit(found, page: documentURL)
                }
                if seen.count == 0 { needed = await renderer.shouldRender(afterStatic: document, url: url) }
            }
            var renderFailed = false
            if needed {
                rendered = true
                do {
                    for try await payload in environment.renderedPayloads(for: FetchRequest(url: url), from: request) { read(payload) }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    try Task.checkCancellation()
                    // The static fetch succeeded: a render that crashed, timed out or was refused
                    // leaves the page its static result (and whatever the render found before it
                    // failed), marked, never a failure in its place.
                    renderFailed = true
                    continuation.yield(ResultSet(diagnostics: [Diagnostic(.warning, "\(Self.renderFailedPrefix)\(error)", source: "browser")]))
                }
            }
            // A failed render says nothing about whether the host's pages need the browser.
            if !renderFailed {
                await renderer.learn(url: url, neededBrowser: needed && (seen.count > 0 || !(heldBack?.media.isEmpty ?? true)))
            }
        } else if !rendered, let renderer = environment.renderer, seen.count > 0 {
            await renderer.learn(url: url, neededBrowser: false)
        }

        if var held = heldBack, nothingNamed, !definitive {
            // The page names nothing: what it shows answers, in the order of its regions.
            held.media = SiblingRenditions.mergeByStem(held.media)
            shownAnswered = !held.media.isEmpty
            emit(held, page: documentURL)
        }

        if nothingNamed && !definitive {
            for link in oEmbedLinks.prefix(environment.maxFollowUps) where link.scheme == "http" || link.scheme == "https" {
                do {
                    for try await var payload in environment.payloads(for: FetchRequest(url: link), from: request) {
                        payload.info.origin = .followUp(reason: "oembed")
                        guard payload.info.isSuccess else { continue }
                        kept.append(payload)
                        emit(environment.parsers.parse(payload, stages: .structured), page: documentURL)
                    }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    continuation.yield(ResultSet(diagnostics: [Diagnostic(.warning, "oEmbed follow-up failed: \(error)", source: "web")]))
                }
            }
        }

        if nothingNamed, let summary = kept.first(where: { $0.info.origin == .document })?.document, Self.isAboutAStill(summary) {
            // The page names a still picture as what it shows and nothing moving: media-looking
            // URLs in its text belong to sidebars and other posts, not to it.
            definitive = true
        }

        if nothingNamed && !definitive {
            // Nothing structured: scan the text of every payload. JSON first, where each item's
            // files come grouped (its gif, mp4, .gifv as one media); then the document's text.
            let unread = kept.indices.filter { !fallbackRead.contains($0) }.map { kept[$0] }
            let jsonFirst = unread.filter { !$0.info.isHTMLDocument } + unread.filter(\.info.isHTMLDocument)
            for payload in jsonFirst {
                emit(environment.parsers.parse(payload, stages: .fallback), page: documentURL)
            }
        }

        if !definitive {
            for set in unreadRest { emit(set, page: documentURL) }
        }

        if seen.count == 0, let status = documentStatus, !(200..<300).contains(status) {
            throw WebError(url: url.absoluteString, status: status)
        }
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
