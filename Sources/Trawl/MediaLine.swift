import TrawlCore

/// One media as `trawl resolve --json` prints it, and as `trawl batch` writes it in `media`.
public struct MediaLine: Codable, Sendable, Hashable {
    public var input: String
    public var url: String
    public var kind: String
    public var width: Int?
    public var height: Int?
    public var byteSize: Int?
    public var title: String?
    public var still: String?
    public var page: String?
    public var parser: String
    public var origin: String
    public var renditions: [Rendition]
    public var degraded: String?

    public init(_ media: Media, input: String, degraded: String?) {
        self.input = input
        url = media.url
        kind = media.kind.rawValue
        width = media.width
        height = media.height
        byteSize = media.byteSize
        title = media.title
        still = media.still
        page = media.page
        parser = media.provenance.parser
        origin = media.provenance.origin.description
        renditions = media.renditions
        self.degraded = degraded
    }
}

