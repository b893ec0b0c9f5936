/// One result: a GIF, or a GIF-like clip, with everything known about it.
public struct Media: Sendable, Hashable, Codable {
    /// The primary URL: the best GIF-like rendition.
    public var url: String
    public var kind: MediaKind
    public var width: Int?
    public var height: Int?
    /// Size of the primary file in bytes, where the source says.
    public var byteSize: Int?
    public var title: String?
    /// Text describing the media beside its title, where the source gives one: alt text, a
    /// caption, a content description (Tenor's `content_description`, Giphy's `alt_text`). Left
    /// out of JSON when unknown.
    public var caption: String?
    /// The source's own tags or keywords for the media (Giphy's and Tenor's `tags`, a Tumblr
    /// post's), in the source's order. Left out of JSON when the source gives none.
    public var tags: [String]?
    /// A still picture of the media (poster, thumbnail).
    public var still: String?
    /// The running time in seconds, as the source states it (Redgifs' and Coub's `duration`, a
    /// Mastodon attachment's `meta.original.duration`, X's `duration_millis`); seconds as a
    /// `Double`, the unit ``MediaProbe/durationSeconds`` uses. What the file itself says, when it
    /// was probed, is the probe's. Left out of JSON when the source does not say.
    public var durationSeconds: Double?
    /// Other files of the same media (another size or format), primary excluded.
    public var renditions: [Rendition]
    /// The page the media came from.
    public var page: String?
    /// What that page is (``PageKind``), as the ranking stage decided it.
    public var pageKind: PageKind?
    /// Which parser found it, in which payload.
    public var provenance: Provenance
    /// The title as an HTML fragment with the terms a search matched in `<mark>…</mark>` (the
    /// rest escaped), when the media came from a search that marks them (the local index).
    public var highlight: String?
    /// What the URL really answered, when it was probed (`--probe`).
    public var probe: MediaProbe?
    /// What the parsers saw that says this is the page's own media (`in <article>`,
    /// `declared 480×270`, `named by opengraph`); filled only when an explanation was asked for.
    public var evidence: [String]?
    /// The ranking stage's verdict on it; filled only when an explanation was asked for.
    public var explanation: Explanation?

    public init(
        url: String, kind: MediaKind, width: Int? = nil, height: Int? = nil, byteSize: Int? = nil,
        title: String? = nil, still: String? = nil, renditions: [Rendition] = [], page: String? = nil,
        provenance: Provenance, caption: String? = nil, tags: [String]? = nil
    ) {
        self.url = url
        self.kind = kind
        self.width = width
        self.height = height
        self.byteSize = byteSize
        self.title = title
        self.still = still
        self.renditions = renditions
        self.page = page
        self.provenance = provenance
        self.caption = caption
        self.tags = tags
    }

    /// The primary URL and every rendition's URL.
    public var allURLs: [String] { [url] + renditions.map(\.url) }

    /// The key two results share when they are the same file.
    public var canonicalKey: String { CanonicalURL.key(url) }
}

/// Another file of the same media: a size or a format.
public struct Rendition: Sendable, Hashable, Codable {
    public var url: String
    public var kind: MediaKind
    public var width: Int?
    public var height: Int?
    public var byteSize: Int?
    /// The source's own name for it (`fixed_height`, `tinygif`), if it has one.
    public var name: String?
    /// What the URL really answered, when renditions were probed (`--probe-renditions`).
    public var probe: MediaProbe?

    public init(url: String, kind: MediaKind, width: Int? = nil, height: Int? = nil, byteSize: Int? = nil, name: String? = nil) {
        self.url = url
        self.kind = kind
        self.width = width
        self.height = height
        self.byteSize = byteSize
        self.name = name
    }
}

/// Where a result came from.
public struct Provenance: Sendable, Hashable, Codable {
    /// The parser's name (`opengraph`, `regex-fallback`, `giphy`).
    public var parser: String
    /// The payload the parser read.
    public var origin: PayloadOrigin
    /// The URL of that payload.
    public var payloadURL: String?

    public init(parser: String, origin: PayloadOrigin, payloadURL: String? = nil) {
        self.parser = parser
        self.origin = origin
        self.payloadURL = payloadURL
    }
}
