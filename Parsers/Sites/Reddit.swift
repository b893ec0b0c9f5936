package import Foundation
package import TrawlCore
import TrawlProbe

/// Reddit: a post's page is best read as its JSON (`/comments/ID/.json`): the post's
/// `preview.images[].variants` (gif, mp4), `secure_media.reddit_video` (v.redd.it),
/// `media_metadata` (AnimatedImage / RedditVideo, also in galleries, in `gallery_data` order),
/// an `i.redd.it` or Imgur link, and a crosspost's parent. Comments are not the post: their
/// media are not results.
package struct RedditSite: Site {
    package let name = "reddit"
    package let hosts = ["reddit.com", "redd.it"]
    package var parsers: [any Parser] { [RedditJSONParser(), RedditDASHParser()] }
    package init() {}

    /// `…/comments/ID/…`, `/gallery/ID`, `redd.it/ID` → `https://www.reddit.com/comments/ID/.json`;
    /// `v.redd.it/ID` → its DASH playlist (`v.redd.it/ID/DASHPlaylist.mpd`; when that fails, the
    /// short link's redirect to its post hands the page over to the post's JSON);
    /// `preview.redd.it/NAME.gif?width=…&s=…` → the uploaded file, `i.redd.it/NAME.gif`.
    package func rewrite(_ url: URL) -> [URL] {
        let parts = url.path.split(separator: "/").map(String.init)
        switch url.host?.lowercased() {
        case "v.redd.it":
            guard parts.count == 1, let id = parts.first, id.allSatisfy({ $0.isLetter || $0.isNumber }) else { return [] }
            return [URL(string: "https://v.redd.it/\(id)/DASHPlaylist.mpd")!]
        case "preview.redd.it":
            guard parts.count == 1, let name = parts.first, !name.isEmpty else { return [] }
            return [URL(string: "https://i.redd.it/\(name)")!]
        default: break
        }
        guard !url.path.hasSuffix(".json") else { return [] }
        var id: String?
        if let index = parts.firstIndex(of: "comments"), index + 1 < parts.count { id = parts[index + 1] }
        if parts.first == "gallery", parts.count > 1 { id = parts[1] }
        if url.host?.lowercased() == "redd.it", let first = parts.first { id = first }
        guard let id, !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber }) else { return [] }
        return [URL(string: "https://www.reddit.com/comments/\(id)/.json?raw_json=1")!]
    }
}

package struct RedditJSONParser: Parser {
    package let name = "reddit-json"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.isFetched && info.belongs(to: RedditSite())
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the post JSON")
        // A listing of posts (a subreddit, the front page, a user's saved posts): every post's
        // media, in the listing's order. A post's own JSON is [post listing, comment listing]:
        // its comments are other people's, never the post's media.
        if json.array == nil, json["kind"]?.string == "Listing", let children = json["data"]?["children"]?.array,
            children.count != 1 || children.first?["kind"]?.string != "t3" || !Self.isPostURL(payload.info.url)
        {
            var collection = MediaCollection()
            for child in children where child["kind"]?.string == "t3" {
                guard let post = child["data"] else { continue }
                collection.insert(contentsOf: Self.media(of: post, parser: name, payload: payload))
            }
            var set = ResultSet(media: collection.media)
            // A listing says what each post holds: stills and text posts give nothing.
            set.isDefinitive = children.contains { $0["kind"]?.string == "t3" }
            return set
        }
        let listing = json.array?.first ?? json
        guard let post = listing["data"]?["children"]?[0]?["data"] ?? (json["title"] != nil ? json : nil) else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no post in the listing")
        }
        var set = ResultSet(media: Self.media(of: post, parser: name, payload: payload))
        // Nothing found is an answer only for posts that say they hold no media (text posts,
        // still images); otherwise the post's shape may have changed.
        let hint = post["post_hint"]?.string
        set.isDefinitive = !set.media.isEmpty || post["is_self"]?.bool == true || hint == "image" || hint == "self"
        return set
    }

    /// Whether a URL names one post (`/comments/ID/…`, `/gallery/ID`, `/by_id/t3_ID`) rather
    /// than a listing of posts.
    static func isPostURL(_ url: URL) -> Bool {
        let parts = url.path.split(separator: "/")
        return parts.contains("comments") || parts.first == "gallery" || parts.contains("by_id")
    }

    static func media(of post: JSONValue, parser: String, payload: Payload) -> [Media] {
        let title = post["title"]?.string
        var results: [Media] = []
        // Galleries and inline media: one media per item, in gallery order.
        if let metadata = post["media_metadata"]?.object {
            let order = post["gallery_data"]?["items"]?.array?.compactMap { $0["media_id"]?.string } ?? metadata.keys.sorted()
            for id in order {
                guard let item = metadata[id], item["status"]?.string != "failed" else { continue }
                var files = SiteMedia()
                files.title = title
                let source = item["s"]
                let width = source?["x"]?.number, height = source?["y"]?.number
                files.add(source?["gif"]?.string.map(Unescape.htmlEntities), name: "gif", mimeType: "image/gif", width: width, height: height)
                files.add(source?["mp4"]?.string.map(Unescape.htmlEntities), name: "mp4", mimeType: "video/mp4", width: width, height: height)
                // A RedditVideo item names only its HLS and DASH playlists: those are returned
                // (a DASH_<height>.mp4 built from its id and size would be a guess).
                files.add(
                    item["hlsUrl"]?.string.map(Unescape.htmlEntities), name: "hls", mimeType: "application/x-mpegurl", width: item["x"]?.number,
                    height: item["y"]?.number)
                files.add(
                    item["dashUrl"]?.string.map(Unescape.htmlEntities), name: "dash", mimeType: "application/dash+xml", width: item["x"]?.number,
                    height: item["y"]?.number)
                if let media = files.media(parser: parser, payload: payload) { results.append(media) }
            }
        }
        var files = SiteMedia()
        files.title = title
        for video in [post["secure_media"]?["reddit_video"], post["media"]?["reddit_video"], post["preview"]?["reddit_video_preview"]] {
            guard let video else { continue }
            files.durationSeconds = files.durationSeconds ?? video["duration"]?.double
            files.add(
                video["fallback_url"]?.string, name: "fallback", mimeType: "video/mp4",
                width: video["width"]?.number, height: video["height"]?.number)
            files.add(video["hls_url"]?.string.map(Unescape.htmlEntities), name: "hls", mimeType: "application/x-mpegurl")
            files.add(video["dash_url"]?.string.map(Unescape.htmlEntities), name: "dash", mimeType: "application/dash+xml")
        }
        for image in post["preview"]?["images"]?.array ?? [] {
            let source = image["source"]
            files.addStill(source?["url"]?.string.map(Unescape.htmlEntities), width: source?["width"]?.number, height: source?["height"]?.number)
            for (variant, type) in [("gif", "image/gif"), ("mp4", "video/mp4")] {
                let best = image["variants"]?[variant]?["source"]
                files.add(
                    best?["url"]?.string.map(Unescape.htmlEntities), name: variant, mimeType: type,
                    width: best?["width"]?.number, height: best?["height"]?.number)
            }
        }
        // The post's link, when it is a file (`v.redd.it/ID` alone is a player, not a file).
        if let link = (post["url_overridden_by_dest"] ?? post["url"])?.string.map(Unescape.htmlEntities),
            !(URL(string: link)?.host == "v.redd.it" && URL(string: link)?.pathComponents.count ?? 0 <= 2)
        {
            // The post's link is the uploaded file itself: previews are resizes of it.
            files.add(ImgurPageParser.playable(link), name: "original")
            if link.lowercased().hasSuffix(".gifv") {
                // The post's own link stays among its files: it is what the post shows.
                files.add(link, name: "gifv")
                files.add(String(link.dropLast(5)) + ".gif", name: "link-gif")
            }
        }
        if let media = files.media(parser: parser, payload: payload) {
            // A gallery item and the post's own preview can be the same file.
            if !results.contains(where: { Set($0.allURLs.map(CanonicalURL.key)).contains(CanonicalURL.key(media.url)) }) { results.append(media) }
        }
        if results.isEmpty, let parent = post["crosspost_parent_list"]?[0] {
            return media(of: parent, parser: parser, payload: payload)
        }
        return results
    }
}

/// A `v.redd.it` DASH playlist (`DASHPlaylist.mpd`): one media, its video representations (each
/// `BaseURL` a file beside the playlist: `DASH_2_4_M`, `DASH_720.mp4`) as renditions, largest
/// first, and the playlist itself. The files are video only: Reddit keeps the sound in its own
/// representation (`audio`, `DASH_AUDIO_128.mp4`), which a GIF-like clip does not have.
package struct RedditDASHParser: Parser {
    package let name = "reddit-dash"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isFetched && info.url.host?.lowercased() == "v.redd.it" && info.url.path.hasSuffix(".mpd")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let text = String(decoding: payload.body, as: UTF8.self)
        guard text.contains("<MPD") else { throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "not a DASH playlist") }
        var files = SiteMedia()
        let folder = payload.info.url.deletingLastPathComponent()
        for representation in Self.elements("Representation", in: text) {
            let attributes = Self.attributes(of: representation)
            guard
                attributes["mimeType"]?.hasPrefix("video") == true || attributes["id"]?.lowercased().hasPrefix("video") == true
                    || (attributes["mimeType"] == nil && attributes["width"] != nil),
                let base = Self.text(of: "BaseURL", in: representation)
            else { continue }
            let url = base.hasPrefix("http") ? base : folder.appendingPathComponent(base).absoluteString
            files.add(
                url, name: attributes["id"], mimeType: "video/mp4", width: attributes["width"].flatMap { Int($0) },
                height: attributes["height"].flatMap { Int($0) }, bitrate: attributes["bandwidth"].flatMap { Int($0) })
        }
        files.add(payload.info.url.absoluteString, name: "dash", mimeType: "application/dash+xml")
        if let mpd = Self.elements("MPD", in: text).first {
            files.durationSeconds = Self.attributes(of: mpd)["mediaPresentationDuration"].flatMap(PlaylistReader.isoDuration)
        }
        let media = files.files.count > 1 ? files.media(parser: name, payload: payload) : nil
        if media == nil { throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no video representation") }
        var set = ResultSet(media: [media].compactMap { $0 })
        set.isDefinitive = true
        return set
    }

    /// Each `<name …>…</name>` element's text, attributes included.
    static func elements(_ name: String, in text: String) -> [Substring] {
        var found: [Substring] = []
        var rest = text[...]
        while let start = rest.range(of: "<\(name)") {
            let end = rest.range(of: "</\(name)>", range: start.upperBound..<rest.endIndex)
            let close = end?.upperBound ?? rest.range(of: "/>", range: start.upperBound..<rest.endIndex)?.upperBound ?? rest.endIndex
            found.append(rest[start.lowerBound..<close])
            rest = rest[close...]
        }
        return found
    }

    /// The attributes of an element's start tag.
    static func attributes(of element: Substring) -> [String: String] {
        guard let end = element.firstIndex(of: ">") else { return [:] }
        var attributes: [String: String] = [:]
        let tag = element[..<end]
        var rest = tag[...]
        while let equals = rest.range(of: "=\"") {
            let name = rest[..<equals.lowerBound].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).last.map(String.init)
            guard let close = rest[equals.upperBound...].firstIndex(of: "\"") else { break }
            if let name { attributes[name] = Unescape.htmlEntities(String(rest[equals.upperBound..<close])) }
            rest = rest[rest.index(after: close)...]
        }
        return attributes
    }

    /// The text of the first `<name>…</name>` inside an element.
    static func text(of name: String, in element: Substring) -> String? {
        guard let open = element.range(of: "<\(name)>"), let close = element.range(of: "</\(name)>", range: open.upperBound..<element.endIndex) else {
            return nil
        }
        let value = element[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : Unescape.htmlEntities(value)
    }
}
