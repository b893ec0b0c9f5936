/// One media as `trawl resolve --json` prints it, and as `trawl batch` writes it in `media`.
public struct MediaLine: Codable, Sendable, Hashable {
    public var input: String
    public var url: String
    public var kind: String
    public var width: Int?
    public var height: Int?
    public var byteSize: Int?
    public var title: String?
    /// Alt text or a content description, where the source gives one.
    public var caption: String?
    /// The source's tags for the media, where it gives them.
    public var tags: [String]?
    public var still: String?
    /// The running time in seconds the source states (``Media/durationSeconds``); a probe's own
    /// measure is `probe.durationSeconds`.
    public var durationSeconds: Double?
    public var page: String?
    /// What the page is: `item`, `listing`, `article` or `none`, and the evidence that said so.
    public var pageKind: PageKind?
    public var parser: String
    /// `document`, `embedded(…)`, `follow-up(…)`, `xhr`, `dom`.
    public var origin: String
    /// `browser` when the media came from a rendered page (its XHR payloads or its DOM),
    /// `static` otherwise.
    public var loader: String
    public var renditions: [Rendition]
    /// Whether a fallback found this media because the site parser could not.
    public var degraded: Bool
    /// Which parsers failed and why, when ``degraded``.
    public var degradedReason: String?
    /// Where the next page of the result set this media came from starts (a `--page` token).
    public var next: String?
    /// The title with the matched terms in `<mark>` (HTML, the rest escaped): `!local` results only.
    public var highlight: String?
    /// What the URL really answered, when it was probed (`--probe`).
    public var probe: MediaProbe?
    /// What says this media is the page's own (`--explain` only).
    public var evidence: [String]?
    /// Kept or dropped, and by which rule of the ranking stage (`--explain` only).
    public var explanation: Explanation?

    /// - Parameters:
    ///   - media: the media to print.
    ///   - input: what the user gave (the line's `input`, with its secrets redacted as
    ///     everything Trawl prints or answers is: `Redaction.text(_:extraParameters:)`).
    ///   - reason: the reason the result set was degraded, `nil` when it was not.
    ///   - next: where the next page starts, if there is one.
    public init(_ media: Media, input: String, degraded reason: String?, next: Pagination? = nil) {
        self.input = Redaction.text(input)
        url = media.url
        kind = media.kind.rawValue
        width = media.width
        height = media.height
        byteSize = media.byteSize
        title = media.title
        caption = media.caption
        tags = media.tags
        still = media.still
        durationSeconds = media.durationSeconds
        // The page is most often the input itself: its secrets go as the input's do. (Media
        // URLs stay whole: a signed CDN URL is useless without its signature.)
        page = media.page.map { Redaction.url($0) }
        pageKind = media.pageKind
        parser = media.provenance.parser
        origin = media.provenance.origin.description
        loader = media.provenance.origin.isRendered ? "browser" : "static"
        renditions = media.renditions
        degraded = reason != nil
        degradedReason = reason
        self.next = next?.token
        highlight = media.highlight
        probe = media.probe
        evidence = media.evidence
        explanation = media.explanation
    }

    /// The line for `media` of `set`: degradation and next page from the set.
    public init(_ media: Media, of set: ResultSet, input: String) {
        self.init(media, input: input, degraded: set.degradation?.reason, next: set.next)
    }
}
