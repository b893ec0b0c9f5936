package import Foundation
package import TrawlCore

/// Tenor: GIF pages (`tenor.com/view/slug-ID`), media files, and the API, v1 (`api.tenor.com/v1`,
/// each result's `media: [{gif: {url, dims, size, duration}, mp4: …}]`) and v2
/// (`tenor.googleapis.com/v2`, `media_formats: {gif: …}`), paged by the `next` cursor.
///
/// A media file's first path segment is its post's id and the format: eleven base64url
/// characters that are the id's 64 bits (`DwH1qQbIoCo` → post `1081415491857719338`), then the
/// format's code (`AAAAC` the gif, `AAAPo` the mp4, `AAAAM` the tiny gif). With an API key
/// (`TRAWL_TENOR_KEY`), a pasted file is read as its post (`/v2/posts?ids=ID`): every format
/// and the post's description; without one, as the file it is.
///
/// Examples:
/// - `https://media.tenor.com/DwH1qQbIoCoAAAAC/aidan-hutchinson-detroit-lions.gif`,
///   `https://media1.tenor.com/m/DwH1qQbIoCoAAAAC/aidan-hutchinson-detroit-lions.gif`
///   → `https://tenor.googleapis.com/v2/posts?ids=1081415491857719338&key=KEY&client_key=trawl`
package struct TenorSite: Site {
    package let name = "tenor"
    /// `tenor.co` share links redirect to a `tenor.com/view/…` page, which the page parser reads.
    package let hosts = ["tenor.com", "tenor.co", "tenor.googleapis.com"]
    package var parsers: [any Parser] { [TenorPageParser(), TenorAPIParser()] }
    package init() {}

    package static let api = "https://tenor.googleapis.com/v2"
    /// The `client_key` Tenor's v2 API asks callers to name themselves by (the search's too).
    static let clientKey = "trawl"

    package func sources(for url: URL, keys: SiteKeys) -> [FetchRequest] {
        guard let id = Self.postID(ofMedia: url), let key = keys[name] else { return [] }
        var components = URLComponents(string: Self.api + "/posts")!
        components.queryItems = [
            URLQueryItem(name: "ids", value: id), URLQueryItem(name: "key", value: key), URLQueryItem(name: "client_key", value: Self.clientKey),
        ]
        return [components.url].compactMap { $0 }.map { FetchRequest(url: $0) }
    }

    package func unaskedSource(for url: URL, keys: SiteKeys) -> String? {
        guard let id = Self.postID(ofMedia: url), keys[name] == nil else { return nil }
        return "a Tenor file of post \(id), read as the file: its post (every format, the description) needs a Tenor API key (TRAWL_TENOR_KEY)"
    }

    /// The post id a media file's path carries (`/DwH1qQbIoCoAAAAC/x.gif`, `/m/DwH1qQbIoCoAAAAC/x.gif`
    /// on `media.tenor.com`, `media1.tenor.com`, `c.tenor.com`), as the API writes it (decimal);
    /// `nil` for any other URL, such as the v1 API's `media.tenor.com/images/HASH/tenor.gif`.
    static func postID(ofMedia url: URL) -> String? {
        guard let host = url.host?.lowercased(), host.hasSuffix(".tenor.com"), host.hasPrefix("media") || host == "c.tenor.com" else { return nil }
        var parts = url.path.split(separator: "/").map(String.init)
        if parts.first == "m" { parts.removeFirst() }
        guard parts.count == 2, parts[1].contains("."), parts[0].count > 11 else { return nil }
        return id(ofBase64URL: parts[0].prefix(11))
    }

    /// Eleven base64url characters (66 bits, the last two zero) as the 64-bit number they hold.
    static func id(ofBase64URL text: Substring) -> String? {
        var value: UInt64 = 0
        for (index, character) in text.enumerated() {
            guard let ascii = character.asciiValue else { return nil }
            let digit: UInt64
            switch ascii {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): digit = UInt64(ascii - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): digit = UInt64(ascii - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(ascii - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): digit = 62
            case UInt8(ascii: "_"): digit = 63
            default: return nil
            }
            if index < 10 {
                value = value << 6 | digit
            } else {
                // The last character holds the id's lowest four bits and two zero bits.
                guard digit & 0b11 == 0 else { return nil }
                value = value << 4 | digit >> 2
            }
        }
        return value == 0 ? nil : String(value)
    }
}

/// A Tenor GIF page: two `og:video` blocks (mp4 and webm) and `og:image` (the gif), all one GIF.
package struct TenorPageParser: Parser {
    package let name = "tenor-page"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool { info.isHTMLDocument && info.belongs(to: TenorSite()) }

    package func parse(_ payload: Payload) throws -> ResultSet {
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
package struct TenorAPIParser: Parser {
    package let name = "tenor-api"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        let host = info.url.host?.lowercased()
        return info.isJSON && (host == "api.tenor.com" || host == "g.tenor.com" || host == "tenor.googleapis.com")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
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
            let type =
                name.contains("mp4")
                ? "video/mp4" : name.contains("webm") ? "video/webm" : name.contains("webp") ? "image/webp" : name.contains("gif") ? "image/gif" : nil
            files.add(format["url"]?.string, name: name, mimeType: type, width: width, height: height, byteSize: format["size"]?.number)
            if let preview = format["preview"]?.string, name == "gif" { files.addStill(preview, width: width, height: height) }
        }
        guard var media = files.media(parser: parser, payload: payload) else { return nil }
        // The post's own page (`https://tenor.com/view/slug-ID`), not the API call that listed it.
        if let page = result["itemurl"]?.string, let scheme = URL(string: page)?.scheme?.lowercased(), scheme == "https" || scheme == "http" {
            media.page = page
        }
        return media
    }
}
