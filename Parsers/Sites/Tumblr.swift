import Foundation
package import TrawlCore

/// Tumblr: posts in the v2 API (`response.posts[]`, legacy `photos[].original_size` and NPF
/// `content[]` image and video blocks) and in a post page's embedded state; on a page only the
/// post named in the URL (`/post/ID`) counts, not the blog's other posts.
package struct TumblrSite: Site {
    package let name = "tumblr"
    package let hosts = ["tumblr.com"]
    package var parsers: [any Parser] { [TumblrPostParser()] }
    package init() {}
}

package struct TumblrPostParser: Parser {
    package let name = "tumblr-post"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        guard info.isJSON, info.belongs(to: TumblrSite()), !info.url.path.contains("oembed") else { return false }
        if case .embedded = info.origin { return true }
        return info.origin == .document
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the posts JSON")
        let wanted = Self.postID(payload.info.url)
        var posts: [JSONValue] = []
        json.walk { value in
            guard let id = value["id_string"]?.string ?? value["idString"]?.string ?? value["id"]?.string,
                value["content"]?.array != nil || value["photos"]?.array != nil || value["video_url"] != nil
            else { return }
            if wanted == nil || wanted == id { posts.append(value) }
        }
        var set = ResultSet(media: posts.flatMap { Self.media(of: $0, parser: name, payload: payload) })
        set.isDefinitive = !posts.isEmpty
        return set
    }

    static func postID(_ url: URL) -> String? {
        let parts = url.path.split(separator: "/")
        guard let index = parts.firstIndex(of: "post"), index + 1 < parts.count else { return nil }
        return String(parts[index + 1])
    }

    static func media(of post: JSONValue, parser: String, payload: Payload) -> [Media] {
        let title = post["summary"]?.string ?? post["slug"]?.string
        let tags = (post["tags"]?.array ?? []).compactMap(\.string)
        var results: [Media] = []
        for photo in post["photos"]?.array ?? [] {
            var files = SiteMedia()
            files.title = title
            files.caption = photo["caption"]?.string
            files.tags = tags
            for size in [photo["original_size"]].compactMap({ $0 }) + (photo["alt_sizes"]?.array ?? []) {
                files.add(size["url"]?.string, width: size["width"]?.number, height: size["height"]?.number)
            }
            if let media = files.media(parser: parser, payload: payload) { results.append(media) }
        }
        for block in post["content"]?.array ?? [] {
            var files = SiteMedia()
            files.title = title
            // NPF blocks carry their own alt text.
            files.caption = block["alt_text"]?.string
            files.tags = tags
            switch block["type"]?.string {
            case "image":
                for item in block["media"]?.array ?? [] {
                    files.add(item["url"]?.string, mimeType: item["type"]?.string, width: item["width"]?.number, height: item["height"]?.number)
                }
            case "video":
                let item = block["media"]
                files.add(
                    (item?["url"] ?? block["url"])?.string, mimeType: item?["type"]?.string ?? "video/mp4",
                    width: item?["width"]?.number, height: item?["height"]?.number)
                files.addStill(block["poster"]?[0]?["url"]?.string)
            default:
                continue
            }
            if let media = files.media(parser: parser, payload: payload) { results.append(media) }
        }
        if let video = post["video_url"]?.string {
            var files = SiteMedia()
            files.title = title
            files.tags = tags
            files.add(video, mimeType: "video/mp4")
            files.addStill(post["thumbnail_url"]?.string)
            if let media = files.media(parser: parser, payload: payload) { results.append(media) }
        }
        return results
    }
}
