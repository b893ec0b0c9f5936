/// What the one-pass HTML scanner found in a document: the parts parsers read.
///
/// Values are plain Swift: no parser touches libxml2. URLs are as written in the page
/// (entities decoded); resolve them with ``resolve(_:)``.
public struct DocumentSummary: Sendable, Hashable {
    public var title: String?
    /// The `<base href>` if the page has one.
    public var baseHref: String?
    public var metaTags: [MetaTag]
    public var links: [LinkTag]
    public var mediaElements: [MediaElement]
    /// The charset the document was read in.
    public var charset: String
    /// The page URL (after redirects).
    public var url: String
    /// Set when libxml2 gave up on the document part way: everything above was read up to
    /// there, and the bytes from ``ScanStop/offset`` on were not read as markup.
    public var stop: ScanStop?
    /// The `@type`s its JSON-LD declares (`newsarticle`, `videoobject`), lower-cased, in the order
    /// met: what the page says it is, beside its OpenGraph type.
    public var linkedDataTypes: [String] = []

    public init(
        url: String, title: String? = nil, baseHref: String? = nil, metaTags: [MetaTag] = [],
        links: [LinkTag] = [], mediaElements: [MediaElement] = [], charset: String = "utf-8"
    ) {
        self.url = url
        self.title = title
        self.baseHref = baseHref
        self.metaTags = metaTags
        self.links = links
        self.mediaElements = mediaElements
        self.charset = charset
    }

    /// Values of the meta tags whose key is `key` (lower-case), in document order.
    public func meta(_ key: String) -> [String] {
        metaTags.lazy.filter { $0.key == key }.map(\.value)
    }

    /// The first value of the meta tag `key`.
    public func firstMeta(_ key: String) -> String? {
        metaTags.first { $0.key == key }?.value
    }

    /// Resolves a URL as written in the page against `<base href>` and the page URL.
    public func resolve(_ reference: String) -> String? {
        URLResolver.resolve(reference, base: baseHref.flatMap { URLResolver.resolve($0, base: url) } ?? url)
    }
}

/// Where and why the HTML scan of a document stopped before its end (libxml2 could not take
/// more input: bytes its decoder cannot convert, memory). What was read up to there stands;
/// the rest is read by the text fallback.
public struct ScanStop: Sendable, Hashable {
    /// The byte offset in the document's body from which its markup was not read. It starts a
    /// little before where libxml2 stopped (libxml2 may have held an unfinished tag back), so
    /// reading from here misses nothing.
    public var offset: Int
    /// What libxml2 said, naming the call that failed.
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }
}

/// `<meta>`: the key is `property`, `name` or `itemprop`, lower-cased; the value is `content`
/// (or `value`, which old Twitter-card pages use).
public struct MetaTag: Sendable, Hashable {
    public var key: String
    public var value: String
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// `<link>`: rel tokens lower-cased.
public struct LinkTag: Sendable, Hashable {
    public var rel: [String]
    public var href: String
    public var type: String?
    public var `as`: String?
    public var title: String?

    public init(rel: [String], href: String, type: String? = nil, as: String? = nil, title: String? = nil) {
        self.rel = rel
        self.href = href
        self.type = type
        self.as = `as`
        self.title = title
    }
}

/// A `<video>`, `<audio>`, `<img>`, `<source>` or `<embed>`: what it shows.
public struct MediaElement: Sendable, Hashable {
    public enum Tag: String, Sendable, Hashable { case video, audio, img, source, embed }

    /// Where on the page an element sits, as its markup says.
    public enum Region: String, Sendable, Hashable {
        /// The page marks no content region around it.
        case unmarked
        /// Inside the page's `<main>` or its first `<article>`: what the page is about.
        case mainContent
        /// Inside a later `<article>` or one nested in another: a reply, an embedded or related post.
        case otherPost
        /// Inside `<nav>`, `<aside>`, a `<footer>`, the page's `<header>`, or a `<section>` whose
        /// id or class says comments, related, sidebar, promotion: interface and other items.
        case peripheral
        /// Written in a string a script builds markup from (`el.innerHTML = '<img src=…>'`).
        case script
    }

    public var tag: Tag
    /// `src`, or `data-src` and friends for lazy images.
    public var src: String?
    /// `srcset` candidates, best (largest) last.
    public var srcset: [String]
    /// The width each ``srcset`` candidate declares (`640w`), where it declares one.
    public var srcsetWidths: [Int?]
    /// The full file an `<img>` names beside a resized or placeholder `src` (`data-original`,
    /// `data-gif`, a lazy `data-src` when `src` is another file).
    public var original: String?
    public var poster: String?
    public var type: String?
    public var width: Int?
    public var height: Int?
    public var alt: String?
    /// For `<source>`: the index (in ``DocumentSummary/mediaElements``) of its `<video>`,
    /// `<audio>` or `<picture>` element's first source.
    public var parent: Int?
    /// For `<source>` inside `<picture>`.
    public var inPicture: Bool
    /// Where the element sits.
    public var region: Region
    /// `aria-hidden="true"`: the page says it is decoration.
    public var isHidden: Bool

    public init(
        tag: Tag, src: String? = nil, srcset: [String] = [], srcsetWidths: [Int?] = [], original: String? = nil, poster: String? = nil,
        type: String? = nil, width: Int? = nil, height: Int? = nil, alt: String? = nil, parent: Int? = nil, inPicture: Bool = false,
        region: Region = .unmarked, isHidden: Bool = false
    ) {
        self.tag = tag
        self.src = src
        self.srcset = srcset
        self.srcsetWidths = srcsetWidths
        self.original = original
        self.poster = poster
        self.type = type
        self.width = width
        self.height = height
        self.alt = alt
        self.parent = parent
        self.inPicture = inPicture
        self.region = region
        self.isHidden = isHidden
    }
}
