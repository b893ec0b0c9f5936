package import Foundation
package import TrawlCore

/// Redgifs: watch pages (`redgifs.com/watch/ID`), the embed player (`/ifr/ID`), and direct
/// files (`i.redgifs.com/i/ID.jpg`, `thumbs*.redgifs.com/Name-mobile.mp4`,
/// `media.redgifs.com/Name.mp4`), all read from the v2 API: `GET api.redgifs.com/v2/gifs/ID`
/// with a temporary token (``SiteToken``, from `/v2/auth/temporary`) answers `{gif: {id,
/// urls: {hd, sd, poster, thumbnail}, width, height, duration (seconds), tags, description}}`; the search
/// (`/v2/gifs/search`) answers `{gifs: […], page, pages, total}`.
///
/// Pages are built by scripts and name no file; the API is the only public source. An ID is the
/// file name's lower-case letters (`ExampleClip-mobile.mp4` → `exampleclip`).
///
/// Examples:
/// - `https://www.redgifs.com/watch/examplecliptrawl` → the API item `examplecliptrawl`
/// - `https://www.redgifs.com/ifr/examplecliptrawl`, `https://thumbs2.redgifs.com/ExampleClipTrawl-mobile.mp4`
///   → the same item
package struct RedgifsSite: Site {
    package let name = "redgifs"
    package let hosts = ["redgifs.com"]
    package var parsers: [any Parser] { [RedgifsAPIParser()] }
    package init() {}

    package static let api = "https://api.redgifs.com/v2"

    package var token: SiteToken? { SiteToken(url: URL(string: Self.api + "/auth/temporary")!) }

    package func rewrite(_ url: URL) -> [URL] {
        guard let id = Self.id(of: url) else { return [] }
        return [URL(string: "\(Self.api)/gifs/\(id)")!]
    }

    /// The item a Redgifs URL names, lower case; `nil` for the API itself and pages about no item.
    static func id(of url: URL) -> String? {
        guard let host = url.host?.lowercased(), host != "api.redgifs.com" else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        var candidate: String?
        if let index = parts.firstIndex(where: { $0 == "watch" || $0 == "ifr" }), index + 1 < parts.count {
            candidate = parts[index + 1]
        } else if host == "i.redgifs.com" || host.hasPrefix("thumbs") || host.hasPrefix("media.") || host.hasPrefix("files.") {
            // The file name's leading letters: `Name-mobile.mp4`, `Name-poster.jpg`, `Name.jpg`.
            candidate = parts.last.map { String($0.prefix { $0.isLetter }) }
        }
        guard let id = candidate?.lowercased(), !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
        return id
    }
}

/// Items of the Redgifs v2 API: one (`{gif: …}`) or a search page (`{gifs: […]}`).
package struct RedgifsAPIParser: Parser {
    package let name = "redgifs-api"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.url.host?.lowercased() == "api.redgifs.com" && info.url.path.hasPrefix("/v2/gifs")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the API response")
        let items: [JSONValue]
        if let one = json["gif"], one.object != nil {
            items = [one]
        } else if let many = json["gifs"]?.array {
            items = many
        } else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "neither a gif nor a gifs array")
        }
        let media = items.compactMap { Self.media($0, parser: name, payload: payload) }
        if media.isEmpty, !items.isEmpty {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "\(items.count) items but no urls in any")
        }
        var set = ResultSet(media: media)
        set.isDefinitive = true
        if json["gifs"] != nil {
            set.total = json["total"]?.number
            if let page = json["page"]?.number, let pages = json["pages"]?.number, page < pages { set.next = .offset(page + 1) }
        }
        return set
    }

    static func media(_ item: JSONValue, parser: String, payload: Payload) -> Media? {
        guard let urls = item["urls"] else { return nil }
        var files = SiteMedia()
        let width = item["width"]?.number, height = item["height"]?.number
        files.add(urls["hd"]?.string, name: "hd", mimeType: "video/mp4", width: width, height: height)
        // The sd file is a smaller encode of the same clip: its size is not the item's.
        files.add(urls["sd"]?.string, name: "sd", mimeType: "video/mp4")
        files.add(urls["gif"]?.string, name: "gif", mimeType: "image/gif")
        files.addStill(urls["poster"]?.string, width: width, height: height)
        files.addStill(urls["thumbnail"]?.string)
        let tags = (item["tags"]?.array ?? []).compactMap(\.string)
        files.tags = tags
        files.durationSeconds = item["duration"]?.double
        files.title = item["description"]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? item["id"]?.string
        return files.media(parser: parser, payload: payload)
    }
}
