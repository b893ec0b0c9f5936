package import Foundation
package import TrawlCore

/// Giphy: GIF pages (`giphy.com/gifs/slug-ID`), media hosts, and the v1 API.
///
/// A GIF page carries its whole renditions object inline (`renderDesktop(…, {gif: {…}})`);
/// its `og:image` is a small copy and `twitter:image` a still, so metadata alone gets the
/// wrong file. The API answers `{data: [item…]}` (search, trending) or `{data: item}` (random,
/// by id), with `pagination`.
package struct GiphySite: Site {
    package let name = "giphy"
    package let hosts = ["giphy.com", "gph.is"]
    package var parsers: [any Parser] { [GiphyPageParser(), GiphyAPIParser()] }
    package init() {}

    /// A file on a media host (`media2.giphy.com/media/ID/giphy.gif`, `i.giphy.com/ID.webp`) →
    /// its GIF page, which names its title and every rendition. `gph.is` short links redirect
    /// to a GIF page, which the page parser reads as it is.
    ///
    /// Examples: `https://media1.giphy.com/media/v1.Y2lk/12XMGIWtrHBl5e/giphy.gif`,
    /// `https://i.giphy.com/12XMGIWtrHBl5e.gif` → `https://giphy.com/gifs/12XMGIWtrHBl5e`.
    package func rewrite(_ url: URL) -> [URL] {
        guard let host = url.host?.lowercased(), host.hasPrefix("media") || host == "i.giphy.com" else { return [] }
        let parts = url.path.split(separator: "/").map(String.init)
        let id: String?
        if let media = parts.firstIndex(of: "media"), parts.count >= media + 3 {
            id = parts[parts.count - 2]  // `…/ID/giphy.gif`, after an optional `v1.…` segment
        } else if host == "i.giphy.com", parts.count == 1 {
            id = parts[0].split(separator: ".").first.map(String.init)
        } else {
            id = nil
        }
        guard let id, id.count >= 5, !id.hasPrefix("v1."), id.allSatisfy({ $0.isLetter || $0.isNumber }) else { return [] }
        return [URL(string: "https://giphy.com/gifs/\(id)")!]
    }
}

/// The GIF a Giphy page is about, from the page's inline `gif` object.
package struct GiphyPageParser: Parser {
    package let name = "giphy-page"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        // The page itself, or a GIF page fetched for a media host's file (``GiphySite/rewrite(_:)``).
        (info.isHTMLDocument || info.isFetched && info.isHTML) && info.belongs(to: GiphySite())
    }

    /// Paths of pages about one GIF, sticker or clip.
    static let itemPaths = ["/gifs/", "/stickers/", "/clips/", "/embed/"]

    package func parse(_ payload: Payload) throws -> ResultSet {
        let path = payload.info.url.path
        guard Self.itemPaths.contains(where: { path.hasPrefix($0) }) || path.hasPrefix("/media/") else {
            // About, search and channel pages: their logos and promos are not what they are about.
            var set = ResultSet(diagnostics: [Diagnostic(.info, "\(path) is not a Giphy GIF page", source: name)])
            set.isDefinitive = true
            return set
        }
        let text = Array(payload.body)
        guard let cut = JSONCut.object(after: "gif:", in: text) ?? JSONCut.object(after: "\"gif\":", in: text) else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no inline gif object")
        }
        let item = try Payload(body: Data(cut), info: payload.info).json(parser: name, what: "the inline gif object")
        var set = ResultSet(media: [GiphyItem.media(item, parser: name, payload: payload)].compactMap { $0 })
        set.isDefinitive = true
        return set
    }
}

/// Items of Giphy's v1 API (`/v1/gifs/search`, `/trending`, `/random`, `/{id}`, stickers).
package struct GiphyAPIParser: Parser {
    package let name = "giphy-api"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.url.host?.lowercased() == "api.giphy.com"
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the API response")
        guard let data = json["data"] else { throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no data in the response") }
        let items = data.array ?? [data]
        let media = items.compactMap { GiphyItem.media($0, parser: name, payload: payload) }
        if media.isEmpty, !items.isEmpty {
            // Items but no file in any: the shape changed, which is not "no results".
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "\(items.count) items but no images in any")
        }
        var set = ResultSet(media: media)
        set.isDefinitive = true
        if let pagination = json["pagination"] {
            set.total = pagination["total_count"]?.number
            let offset = pagination["offset"]?.number ?? 0
            let count = pagination["count"]?.number ?? items.count
            if count > 0, set.total.map({ offset + count < $0 }) ?? false { set.next = .offset(offset + count) }
        }
        return set
    }
}

/// One Giphy item (`{id, title, images: {original: {url, mp4, webp, …}, …}}`) as a media.
enum GiphyItem {
    static func media(_ item: JSONValue, parser: String, payload: Payload) -> Media? {
        var files = SiteMedia()
        files.title = item["title"]?.string ?? item["caption"]?.string
        // `alt_text` (the API's accessibility text) or a caption when the title is something else.
        files.caption = item["alt_text"]?.string ?? (item["title"]?.string == nil ? nil : item["caption"]?.string)
        files.tags = (item["tags"]?.array ?? []).compactMap(\.string)
        guard let images = item["images"]?.object else {
            // The older flat shape (`random`): `image_original_url`, `image_mp4_url`,
            // `fixed_height_small_url` with `…_width` / `…_height` beside each.
            for (key, value) in (item.object ?? [:]).sorted(by: { $0.key < $1.key }) where key.hasSuffix("_url") && key != "url" {
                let prefix = String(key.dropLast(4))
                let base = prefix.replacingOccurrences(of: "_still", with: "").replacingOccurrences(of: "_mp4", with: "")
                let width = item[base + "_width"]?.number ?? (base == "image" || base == "image_original" ? item["image_width"]?.number : nil)
                let height = item[base + "_height"]?.number ?? (base == "image" || base == "image_original" ? item["image_height"]?.number : nil)
                if prefix.hasSuffix("_still") { files.addStill(value.string, width: width, height: height); continue }
                files.add(value.string, name: prefix, mimeType: prefix.hasSuffix("mp4") ? "video/mp4" : nil, width: width, height: height)
            }
            return files.media(parser: parser, payload: payload)
        }
        // The original first: other names may share its URL, and what a file is comes from its
        // name here, not from where its key sorts.
        for (name, image) in images.sorted(by: { ($0.key == "original" ? 0 : 1, $0.key) < ($1.key == "original" ? 0 : 1, $1.key) }) {
            let width = image["width"]?.number, height = image["height"]?.number
            if name.hasSuffix("_still") || name == "480w_still" {
                files.addStill(image["url"]?.string, width: width, height: height)
                continue
            }
            files.add(image["url"]?.string, name: name, mimeType: "image/gif", width: width, height: height, byteSize: image["size"]?.number)
            files.add(image["mp4"]?.string, name: name, mimeType: "video/mp4", width: width, height: height, byteSize: image["mp4_size"]?.number)
            files.add(image["webp"]?.string, name: name, mimeType: "image/webp", width: width, height: height, byteSize: image["webp_size"]?.number)
        }
        return files.media(parser: parser, payload: payload)
    }
}
