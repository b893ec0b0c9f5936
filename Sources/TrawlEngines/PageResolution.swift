import Foundation
import TrawlCore
import TrawlParsers

/// What one page's resolution knows so far, and the rules that turn its payloads into result
/// sets: the part of ``WebEngine`` that does no IO.
///
/// ``PageResolutionRun`` drives it through five steps and does the fetching, rendering and asking in
/// between; each step leaves the result sets to send in ``take()``:
///
/// 1. **Site source** (``readSiteSource(_:site:)``): a site's better source than its page (a
///    post's JSON). When it answers (``siteSourceAnswered``), the page is not fetched.
/// 2. **Page** (``read(_:)``): the document, the JSON cut out of it, and — when rendered — its
///    XHR answers and DOM snapshots. What the page names (its metadata, its post object) goes out
///    at once; what its body merely shows is held back. A large document's start
///    (``readStart(_:)``) comes first: what its meta tags name goes out before the body ends.
/// 3. **Render decision** (``renderDecision(canRender:)``), after every static stage: the items a state
///    object carries answer without a browser; only a page with nothing at all is offered to the
///    renderer.
/// 4. **What the page shows, then oEmbed** (``afterPage()``): shown media answer when nothing is
///    named; the page's oEmbed links are followed when still nothing is.
/// 5. **Fallback** (``finish()``): the text scan over every payload, JSON first; the part of a
///    document libxml2 gave up on last; an HTTP error when nothing at all was found.
///
/// Every set passes the ranking stage (``MediaRanking``) on its way out.
struct PageResolution {
    let url: URL
    let parsers: ParserChain
    let maxFollowUps: Int
    /// Whether the caller asked why each media was kept or dropped.
    let explain: Bool
    let siteParsers: Set<String>

    private var output: [ResultSet] = []
    private(set) var seen = MediaCollection()
    private var kept: [Payload] = []
    private var oEmbedLinks: [URL] = []
    private(set) var documentStatus: Int?
    private var documentURL: URL
    private var snapshotRead = false
    /// A site parser said what the page holds: no guessing from its text afterwards.
    private var definitive = false
    /// A site parser's word that the page shows nothing to anyone not logged in
    /// (``NotPublicError``): the error when nothing at all is found.
    private var notPublic: NotPublicError?
    /// Site parsers that claimed a payload and failed or found nothing: if anything later
    /// answers, the answer is degraded.
    private var siteFailures: [Degradation.Failure] = []
    /// Media emitted early from a rendered page's XHR payloads by the text fallback: they do not
    /// count as the page naming its item.
    private var streamed = 0
    /// `kept` indexes of payloads the fallback already read.
    private var fallbackRead = Set<Int>()
    /// What the page shows answered (held back until after the page).
    private var shownAnswered = false
    /// Stills of the media emitted so far: never a media of their own.
    private var stills = Set<String>()
    /// Media the page shows without naming them (its body's images and videos), held until
    /// every payload of the page is read: they answer only if nothing names the page's item.
    private var heldBack: ResultSet?
    /// What the text fallback found in the part of a document libxml2 gave up on (see
    /// ``ScanStop``): whether those media are named or merely shown cannot be told, so they come
    /// last, after everything the readable part said.
    private var unreadRest: [ResultSet] = []
    /// Candidates the ranking stage dropped, each once (reported with `explain`).
    private var dropped = MediaCollection()
    /// Folders of the images kept so far (see ``MediaRanking/isBesideThePagesMedia(_:verdict:keptFolders:)``).
    private var keptFolders = Set<String>()
    /// What the page says it is (``PageKind``), payload by payload.
    private var kindEvidence = PageKindEvidence()
    /// Media kept so far that the page names (or its JSON carries), and that it only shows.
    private var namedKept = 0
    private var shownKept = 0
    /// Images the page shows that its markup gave no evidence either way: their own bytes may
    /// decide (``bytesCandidates(limit:)``).
    private var undecided = MediaCollection()
    /// Why the site's better source was not asked (``Site/unaskedSource(for:keys:)``): told in
    /// the diagnostics, and with `explain` in every media's evidence.
    private var unaskedSource: String?

    init(url: URL, request: Request, parsers: ParserChain, maxFollowUps: Int) {
        self.url = url
        self.parsers = parsers
        self.maxFollowUps = maxFollowUps
        explain = request.explain == true
        siteParsers = Set(parsers.parsers.filter { $0.stage == .site }.map(\.name))
        documentURL = url
    }

    /// The result sets the last steps produced, in order; empties the queue.
    mutating func take() -> [ResultSet] {
        defer { output.removeAll() }
        return output
    }

    /// Nothing but early XHR media emitted so far.
    var nothingNamed: Bool { seen.count == streamed && !shownAnswered }

    /// Whether anything was found, named or shown.
    var foundAnything: Bool { seen.count > 0 || !(heldBack?.media.isEmpty ?? true) }

    // MARK: 0. hand-over

    /// Where a page that redirected should be read instead: its final URL, when that URL's site
    /// has a source for it (``Site/rewrite(_:)``) the pasted URL did not lead to — a short link
    /// (`t.co`, `gph.is`, `v.redd.it`) to a post whose JSON says more than its page. `nil` keeps
    /// the page: no redirect, a host no site claims (the generic parsers read it), or a site
    /// whose parsers read the redirected page as it is.
    static func handOver(from pasted: URL, to final: URL) -> URL? {
        guard CanonicalURL.key(final.absoluteString) != CanonicalURL.key(pasted.absoluteString),
            let site = Sites.site(for: final)
        else { return nil }
        let sources = site.rewrite(final)
        guard !sources.isEmpty else { return nil }
        let before = Sites.site(for: pasted).map { $0.rewrite(pasted) } ?? []
        return sources == before ? nil : final
    }

    // MARK: 1. site source

    /// Reads one answer of the site's better source.
    mutating func readSiteSource(_ payload: Payload, site: String) {
        guard payload.info.isSuccess else { return }
        var payload = payload
        payload.info.origin = .followUp(reason: "\(site) source")
        kindEvidence.readSource(payload)
        kept.append(payload)  // the text fallback reads it too if nothing answers
        let set = parsers.parse(payload, stages: .structured)
        definitive = definitive || (set.isDefinitive && set.media.isEmpty)
        noteSiteFailures(set, payload)
        emit(set, page: url)
    }

    mutating func siteSourceFailed(_ target: URL, site: String, error: any Error) {
        output.append(
            ResultSet(diagnostics: [
                Diagnostic(.info, "\(site) source \(Redaction.url(target.absoluteString)) failed, reading the page: \(error)", source: "web")
            ]))
    }

    /// The site has a better source for the page that was not asked (a key it needs is missing).
    mutating func noteUnaskedSource(_ note: String, site: String) {
        unaskedSource = note
        output.append(ResultSet(diagnostics: [Diagnostic(.info, note, source: site)]))
    }

    /// The site's source answered (with media, or by saying there are none): the page is not read.
    var siteSourceAnswered: Bool { seen.count > 0 || definitive }

    // MARK: 2. page

    /// Reads one payload of the page: the static document or a rendered DOM, and the JSON
    /// embedded in it or caught from its requests.
    mutating func read(_ payload: Payload) {
        // The first DOM snapshot is the page's; later ones are its iframes' (their media are
        // the page's, found in them like in the page).
        let isPage = payload.info.origin == .document || (payload.info.origin == .domSnapshot && !snapshotRead)
        if payload.info.origin == .domSnapshot { snapshotRead = true }
        if isPage || !payload.info.origin.isRendered { kindEvidence.read(payload) }
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
        // ld+json, its scripts' JSON) go to site parsers only: a generic reading of them finds
        // logos and related items, not more of what the page is about.
        var set = parsers.parse(payload, stages: definitive ? [.site] : .structured)
        definitive = definitive || set.isDefinitive
        noteSiteFailures(set, payload)
        if payload.info.origin == .document || payload.info.origin == .domSnapshot, !set.media.isEmpty {
            set.media = SiblingRenditions.attach(to: set.media, from: payload)
        }
        // The item a page names (its metadata, JSON-LD, its post object) comes first and alone;
        // what its body merely shows waits.
        let shown = set.media.filter { WebEngine.shownParsers.contains($0.provenance.parser) }
        if !shown.isEmpty {
            set.media.removeAll { WebEngine.shownParsers.contains($0.provenance.parser) }
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
            output.append(ResultSet(diagnostics: [WebEngine.scanStopped(stop, payload: payload)]))
            var rest = payload
            rest.body = Data(payload.body.dropFirst(stop.offset))
            rest.document = nil
            if let overflow = payload.overflow {
                // The text past the kept bytes is there as its media-looking URLs only.
                rest.overflow?.candidates = overflow.candidates.filter { $0.offset >= stop.offset }
            }
            unreadRest.append(parsers.parse(rest, stages: .fallback))
        }
        // A rendered page's JSON API answer that nothing structured reads is what the text
        // fallback would read first once the page settled (JSON before documents): read now,
        // its media go out as the response arrives instead of after settling.
        if payload.info.origin == .browserXHR, payload.info.isJSON, set.media.isEmpty, !definitive, nothingNamed {
            fallbackRead.insert(kept.count - 1)
            streamed += emit(parsers.parse(payload, stages: .fallback), page: documentURL)
        }
    }

    /// Reads the start of a large document while the rest of it arrives (its first
    /// ``Environment/documentBodyLimit`` bytes, ``Payload/isDocumentStart``): what its meta tags
    /// name goes out now instead of after the whole body. That is all that can: what the body
    /// shows waits for the whole page (something later may name the item), and embedded JSON
    /// is cut out at the document's end. ``read(_:)`` of the whole document follows and finds
    /// these media again (already sent, they are not sent twice); what it would have added to
    /// them — a shown `<video>`'s poster, renditions named past the start — is lost.
    mutating func readStart(_ payload: Payload) {
        guard !definitive, payload.info.origin == .document else { return }
        kindEvidence.read(payload)
        var start = payload
        start.document?.mediaElements = []
        var set = parsers.parse(start, stages: .generic)
        set.media.removeAll { WebEngine.shownParsers.contains($0.provenance.parser) }
        guard !set.media.isEmpty else { return }
        set.media = SiblingRenditions.attach(to: set.media, from: start)
        // The whole document's read reports what its parsers said.
        set.diagnostics = []
        emit(set, page: payload.info.url)
    }

    // MARK: 3. render decision

    /// What to do about rendering a page that was fetched statically.
    enum RenderDecision {
        /// Nothing to decide or learn (a site parser's answer, an HTTP error).
        case none
        /// The static pass answered: the host's pages did not need the browser.
        case notNeeded
        /// Nothing static at all: ask the renderer whether the page looks script-driven.
        case ask(document: Payload?)
    }

    /// Decides after every static stage: the items a state object or a JSON answer of the page
    /// carries (`__NEXT_DATA__`, a rehydration blob), read by their structure as the fallback
    /// would, answer without a browser.
    /// - Parameter canRender: whether a renderer is there to ask; without one, nothing is
    ///   decided and the state objects wait for the fallback, after the page's oEmbed links.
    mutating func renderDecision(canRender: Bool) -> RenderDecision {
        guard canRender, seen.count == 0, !definitive, documentStatus.map({ (200..<300).contains($0) }) ?? false else {
            return seen.count > 0 ? .notNeeded : .none
        }
        // What the page shows statically waits with what it would show rendered: no render.
        guard heldBack?.media.isEmpty ?? true else { return .notNeeded }
        let structure = StateMediaParser(.everyItem)
        for payload in kept where structure.canParse(payload.info) {
            guard let set = try? structure.parse(payload), !set.media.isEmpty else { continue }
            var found = set
            found.provenance = Provenance(parser: structure.name, origin: payload.info.origin, payloadURL: payload.info.url.absoluteString)
            emit(found, page: documentURL)
        }
        return seen.count > 0 ? .notNeeded : .ask(document: kept.first { $0.info.origin == .document })
    }

    /// A render that crashed, timed out or was refused: the page keeps its static result (and
    /// whatever the render found before it failed), marked, never a failure in its place.
    mutating func renderFailed(_ error: any Error) {
        output.append(ResultSet(diagnostics: [Diagnostic(.warning, "\(WebEngine.renderFailedPrefix)\(error)", source: "browser")]))
    }

    // MARK: 4. what the page shows, then oEmbed

    /// Lets what the page shows answer when it names nothing; the oEmbed links to follow when
    /// still nothing is named.
    mutating func afterPage() -> [URL] {
        if var held = heldBack, nothingNamed, !definitive {
            // The page names nothing: what it shows answers, in the order of its regions.
            held.media = SiblingRenditions.mergeByStem(held.media)
            shownAnswered = !held.media.isEmpty
            emit(held, page: documentURL)
        }
        guard nothingNamed, !definitive else { return [] }
        return oEmbedLinks.prefix(maxFollowUps).filter { $0.scheme == "http" || $0.scheme == "https" }
    }

    mutating func readOEmbed(_ payload: Payload) {
        var payload = payload
        payload.info.origin = .followUp(reason: "oembed")
        guard payload.info.isSuccess else { return }
        kept.append(payload)
        emit(parsers.parse(payload, stages: .structured), page: documentURL)
    }

    mutating func oEmbedFailed(_ error: any Error) {
        output.append(ResultSet(diagnostics: [Diagnostic(.warning, "oEmbed follow-up failed: \(error)", source: "web")]))
    }

    // MARK: 4½. bytes as evidence

    /// What the page is, as far as its payloads have said: its declaration, or — when it
    /// declares nothing — what was found on it.
    var pageKind: PageKind { kindEvidence.declared ?? PageKindEvidence.undeclared(named: namedKept, shown: shownKept) }

    /// The images whose own first bytes should decide (``BytesEvidence``), at most `limit`:
    /// shown in the body of an article or a listing, or of a page that names nothing, with no
    /// evidence either way in the markup. An item's page that names its item keeps its other
    /// images out: they are not what it is about.
    mutating func bytesCandidates(limit: Int) -> [Media] {
        guard !definitive, limit > 0 else { return [] }
        switch kindEvidence.declared?.kind {
        case .article?, .listing?: break
        case .item?, .none?: return []
        case nil: guard namedKept == 0 else { return [] }
        }
        return Array(undecided.media.filter { !seen.contains($0) }.prefix(limit))
    }

    /// Judges `candidates` again with what their bytes said (`probes`, by URL): each goes out
    /// kept or dropped by its bytes' rule.
    mutating func readBytes(_ candidates: [Media], probes: [String: MediaProbe]) {
        let read = candidates.compactMap { candidate -> Media? in
            guard let probe = probes[candidate.url] else { return nil }
            var media = candidate
            media.probe = probe
            // A file its bytes keep takes the size they give (the rule that judged it is the
            // bytes' own, not the icon-size rule over that size).
            if MediaRanking.bytesVerdict(media)?.verdict == .kept { (media.width, media.height) = (probe.width, probe.height) }
            return media
        }
        guard !read.isEmpty else { return }
        emit(ResultSet(media: read), page: documentURL)
    }

    // MARK: 5. fallback

    /// The text fallback when nothing structured answered, then the unread rest of a document;
    /// the page's HTTP error when nothing at all was found.
    mutating func finish() -> (any Error)? {
        if nothingNamed, let summary = kept.first(where: { $0.info.origin == .document })?.document, WebEngine.isAboutAStill(summary) {
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
                emit(parsers.parse(payload, stages: .fallback), page: documentURL)
            }
        }
        if !definitive {
            for set in unreadRest { emit(set, page: documentURL) }
        }
        if seen.count == 0, let status = documentStatus, !(200..<300).contains(status) {
            return WebError(url: url.absoluteString, status: status)
        }
        if seen.count == 0, let notPublic { return notPublic }
        return nil
    }

    // MARK: the rules every set passes

    private mutating func noteSiteFailures(_ set: ResultSet, _ payload: Payload) {
        guard set.media.isEmpty, !set.isDefinitive else { return }
        for parser in parsers.claimants(of: payload.info, stage: .site) {
            let reason = set.diagnostics.first { $0.source == parser.name }?.message ?? "found nothing"
            siteFailures.append(Degradation.Failure(parser: parser.name, reason: reason))
        }
    }

    /// A media the page names that is also one it shows (its `<video>` in the article) takes
    /// what the shown one adds: its poster, its sources.
    private mutating func absorbHeldBack(into media: inout [Media]) {
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

    /// Ranks `set` and queues what is new; returns how many new media went out.
    @discardableResult
    private mutating func emit(_ set: ResultSet, page: URL) -> Int {
        var set = set
        if notPublic == nil, let note = set.diagnostics.first(where: NotPublicError.isNote) {
            notPublic = NotPublicError(url: url.absoluteString, site: note.source ?? "site")
        }
        // A poster or still of one media is not another media.
        for still in set.media.compactMap(\.still) { stills.insert(CanonicalURL.key(still)) }
        set.media.removeAll { stills.contains($0.canonicalKey) }
        let judged = MediaRanking.rank(set.media, siteParsers: siteParsers, keptFolders: &keptFolders)
        for (candidate, verdict) in judged where verdict.verdict == .kept && !seen.contains(candidate) {
            if MediaRanking.source(of: candidate) == .shown { shownKept += 1 } else { namedKept += 1 }
        }
        let kind = pageKind
        var droppedHere: [Media] = []
        set.media = judged.compactMap { candidate, verdict in
            if candidate.probe == nil, MediaRanking.mayBeDecidedByItsBytes(candidate, verdict: verdict) { undecided.insert(candidate) }
            var media = candidate
            media.pageKind = kind
            if explain {
                media.explanation = verdict
                media.evidence = MediaRanking.evidence(of: media) + (unaskedSource.map { [$0] } ?? [])
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
            // A verdict its bytes gave is told even when the markup's verdict was told before.
            droppedHere = droppedHere.filter { dropped.insert($0) || $0.probe != nil }.map { item in
                var item = item
                item.page = page.absoluteString
                return item
            }
        }
        // After a site parser failed, any other parser's answer is degraded.
        if !set.media.isEmpty, set.degradation == nil, !siteFailures.isEmpty,
            !set.media.contains(where: { siteParsers.contains($0.provenance.parser) })
        {
            set.degradation = Degradation(failures: siteFailures, answeredBy: set.provenance?.parser ?? "generic")
        }
        // Every result of a page belongs to that page, whichever payload it came from.
        for index in set.media.indices { set.media[index].page = page.absoluteString }
        let fresh = set.media.filter { seen.insert($0) }
        if explain, !droppedHere.isEmpty { set.dropped = droppedHere }
        guard !fresh.isEmpty || set.dropped != nil else { return 0 }
        set.media = fresh
        output.append(set)
        return fresh.count
    }
}
