import Foundation
import TrawlCore

/// Tenor: GIF pages (`tenor.com/view/slug-ID`) and the API, v1 (`api.tenor.com/v1`, each result's
/// `media: [{gif: {url, dims, size, duration}, mp4: …}]`) and v2 (`tenor.googleapis.com/v2`,
/// `media_formats: {gif: …}`), paged by the `next` cursor.
public struct TenorSite: Site {
    public let name = "tenor"
    /// `tenor.co` share links redirect to a `tenor.com/view/…` page, which the page parser reads.
    public let hosts = ["tenor.com", "tenor.co", "tenor.googleapis.com"]
    public var parsers: [any Parser] { [TenorPageParser(), TenorAPIParser()] }
    public init() {}
}

/// A Tenor GIF page: two `og:video` blocks (mp4 and webm) and `og:image` (the gif), all one GIF.
public struct TenorPageParser: Parser {
    public let name = "tenor-page"
    public let stage = ParserStage.site
    public init() {}

    public func canParse(_ info: PayloadInfo) -> Bool { info.isHTMLDocument && info.belongs(to: TenorSite()) }

    public func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        var files = SiteMedia()
        files.title = document.firstMeta("og:title") ?? document.title
        // Properties belong to the og:video or og:image before them.
        var current: (url: String, type: String?, width: Int?, height: Int?)?
        func flush() {
            if let c = current { files.add(document.resolve(c.url), mimeType: c.type, width: c.width, height: c.height) }
            current = nil
        }
        for tag in document.metaTags {
            switch tag.key {
            case "og:video", "og:video:url", "og:video:secure_url", "og:image", "og:image:url", "og:image:secure_url":
                if tag.key.hasSuffix("secure_url"), current != nil { current?.url = tag.value; continue }
                flush()
                current = (tag.value, nil, nil, nil)
            case "og:video:type", "og:image:type": current?.type = tag.value
            case "og:video:width", "og:image:width": current?.width = Int(tag.value)
            case "og:video:height", "og:image:height": current?.height = Int(tag.value)
            default: continue
            }
        }
        flush()
        return ResultSet(media: [files.media(parser: name, payload: payload)].compactMap { $0 })
    }
}

/// Results of Tenor's API, v1 or v2.
public struct TenorAPIParser: Parser {
    public let name = "tenor-api"
    public let stage = ParserStage.site
    public init() {}

    public func canParse(_ info: PayloadInfo) -> Bool {
        let host = info.url.host?.lowercased()
        return info.isJSON && (host == "api.tenor.com" || host == "g.tenor.com" || host == "tenor.googleapis.com")
    }

    public func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the API response")
        guard let results = json["results"]?.array else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no results array")
        }
        let media = results.compactMap { Self.media($0, parser: name, payload: payload) }
        if media.isEmpty, !results.isEmpty {
            // Results but no file in any: the shape changed, which is not "no results".
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "\(results.count) results but no media formats in any")
        }
        var set = ResultSet(media: media)
        set.isDefinitive = true
        if let next = json["next"]?.string, !next.isEmpty, next != "0", !results.isEmpty { set.next = .cursor(next) }
        return set
    }

    static func media(_ result: JSONValue, parser: String, payload: Payload) -> Media? {
        // v2: media_formats; v1: media, an array holding one such object.
        guard let formats = (result["media_formats"] ?? result["media"]?[0])?.object else { return nil }
        var files = SiteMedia()
        files.title = result["content_description"]?.string ?? result["title"]?.string ?? result["h1_title"]?.string
        files.caption = result["content_description"]?.string
        files.tags = (result["tags"]?.array ?? []).compactMap(\.string)
        // Each format states the clip's length (`duration`, seconds; 0 on stills): the GIF's,
        // else the first format's that says.
        let durations = formats.sorted { ($0.key == "gif" ? 0 : 1, $0.key) < ($1.key == "gif" ? 0 : 1, $1.key) }
            .compactMap { $0.value["duration"]?.double }.filter { $0 > 0 }
        files.durationSeconds = durations.first
        for (name, format) in formats.sorted(by: { $0.key < $1.key }) {
            let dims = format["dims"]?.array
            let width = dims?.first?.number, height = dims?.dropFirst().first?.number
            if name.contains("preview") || name.hasSuffix("png") || name.hasSuffix("jpg") {
                files.addStill(format["url"]?.string, width: width, height: height)
                continue
            }
            // v1 video URLs have no extension (`/videos/HASH/mp4`): the format name says the type.
            let type = name.contains("mp4") ? "video/mp4" : name.contains("webm") ? "video/webm" : name.contains("webp") ? "image/webp" : name.contains("gif") ? "image/gif" : nil
            files.add(format["url"]?.string, name: name, mimeType: type, width: width, height: height, byteSize: format["size"]?.number)
            if let preview = format["preview"]?.string, name == "gif" { files.addStill(preview, width: width, height: height) }
        }
        return files.media(parser: parser, payload: payload)
    }
}
