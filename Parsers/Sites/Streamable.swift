package import Foundation
package import TrawlCore

/// Streamable: video pages (`streamable.com/ID`, the player `streamable.com/e/ID`) and the
/// public API (`api.streamable.com/videos/ID`). Both carry one video object: `files.mp4` and
/// `files.mp4-mobile` (`url` protocol-relative, `width`, `height`, `bitrate`, `size`),
/// `thumbnail_url`, `title`, `duration` (seconds; the API states it per file); a page holds it as `var videoObject = {…}` and names the mp4 as
/// `og:video`. Its `source_url` is where the clip was taken from, not a Streamable file.
///
/// Examples:
/// - `https://streamable.com/vkc0y` → `api.streamable.com/videos/vkc0y`, then the page
package struct StreamableSite: Site {
    package let name = "streamable"
    package let hosts = ["streamable.com"]
    package var parsers: [any Parser] { [StreamableParser()] }
    package init() {}

    package func rewrite(_ url: URL) -> [URL] {
        guard let host = url.host?.lowercased(), host == "streamable.com" || host == "www.streamable.com" else { return [] }
        let parts = url.path.split(separator: "/").map(String.init)
        let id = parts.first == "e" || parts.first == "o" || parts.first == "s" ? parts.dropFirst().first : parts.first
        guard let id, parts.count <= 2, (3...16).contains(id.count), id.allSatisfy({ $0.isLetter || $0.isNumber }) else { return [] }
        return [URL(string: "https://api.streamable.com/videos/\(id)")!]
    }
}

/// The video of a Streamable page or API answer.
package struct StreamableParser: Parser {
    package let name = "streamable"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isFetched && (info.isJSON || info.isHTML) && info.belongs(to: StreamableSite())
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        var files = SiteMedia()
        if payload.info.isJSON {
            let video = try payload.json(parser: name, what: "the video object")
            Self.read(video, into: &files)
        } else if let cut = JSONCut.object(after: "videoObject =", in: Array(payload.body)),
            let video = try? JSONValue(parsing: Data(cut))
        {
            Self.read(video, into: &files)
        }
        if let document = payload.document {
            files.title = files.title ?? document.firstMeta("og:title")
            let width = document.firstMeta("og:video:width").flatMap { Int($0) }, height = document.firstMeta("og:video:height").flatMap { Int($0) }
            if files.files.isEmpty, let video = document.firstMeta("og:video:secure_url") ?? document.firstMeta("og:video") {
                files.add(document.resolve(video), name: "mp4", mimeType: "video/mp4", width: width, height: height)
            }
            if files.stills.isEmpty { files.addStill(document.firstMeta("og:image").flatMap(document.resolve)) }
        }
        var set = ResultSet(media: [files.media(parser: name, payload: payload)].compactMap { $0 })
        set.isDefinitive = !set.media.isEmpty
        return set
    }

    static func read(_ video: JSONValue, into files: inout SiteMedia) {
        let title = video["title"]?.string ?? ""
        files.title = title.isEmpty ? video["reddit_title"]?.string : title
        for name in ["mp4", "mp4-mobile"] {
            guard let file = video["files"]?[name] else { continue }
            files.add(
                file["url"]?.string.map(absolute), name: name, mimeType: "video/mp4", width: file["width"]?.number, height: file["height"]?.number,
                byteSize: file["size"]?.number, bitrate: file["bitrate"]?.number)
        }
        files.addStill(video["thumbnail_url"]?.string.map(absolute))
        // The page's object states it at the top; the API only per file (the same clip, each
        // encode a few microseconds apart).
        files.durationSeconds =
            video["duration"]?.double ?? video["files"]?["mp4"]?["duration"]?.double
            ?? video["files"]?["mp4-mobile"]?["duration"]?.double
    }

    /// A protocol-relative URL (`//cdn…`) made https; entities the page left in its script unescaped.
    static func absolute(_ url: String) -> String {
        let url = Unescape.htmlEntities(url)
        return url.hasPrefix("//") ? "https:" + url : url
    }
}
