/// What a page is, decided from its evidence before its media are ranked: the rules for what
/// counts as a page's own media differ by kind. An article's body GIFs are its content; a post
/// page's other thumbnails belong to other posts; every item of a listing is the listing's.
public struct PageKind: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// One post, one GIF or video page.
        case item
        /// Search results, a feed, a timeline, a gallery, a profile grid.
        case listing
        /// Text with media in its body: a news story, a blog post, a listicle.
        case article
        /// No item at all: a home or login page, an error.
        case none
    }

    public var kind: Kind
    /// The evidence that decided it (`og:type video.other`, `JSON-LD NewsArticle`, `HTTP 404`).
    public var reason: String

    public init(_ kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "\(kind.rawValue) (\(reason))" }
}
