import Foundation
package import TrawlCore

/// Threads: a post page (`https://www.threads.net/@zuck/post/CuP48CiS5sx`, also on
/// `threads.com`, and `https://www.threads.net/t/CuP48CiS5sx`) carries its post and the replies below it in JSON blobs
/// (`<script type="application/json" data-sjs>`), each post an Instagram-style media object:
/// `code` (the URL's shortcode), `video_versions[]`, `image_versions2.candidates[]`,
/// `carousel_media[]` and a GIF attachment's `giphy_media_info` (Giphy's `images` renditions).
/// Only the post whose `code` the URL names is read: replies are other people's posts.
package struct ThreadsSite: Site {
    package let name = "threads"
    package let hosts = ["threads.net", "threads.com"]
    package var parsers: [any Parser] { [ThreadsPostParser()] }
    package init() {}

    /// The shortcode in `/@user/post/CODE` (or the short form `/t/CODE`).
    static func code(_ url: URL) -> String? {
        let parts = url.path.split(separator: "/").map(String.init)
        guard let index = parts.firstIndex(of: "post") ?? (parts.first == "t" ? 0 : nil), index + 1 < parts.count else { return nil }
        let code = parts[index + 1]
        return code.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") } ? code : nil
    }
}

/// The post a Threads page names, from the JSON blobs the page embeds.
package struct ThreadsPostParser: Parser {
    package let name = "threads-post"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.origin.isEmbedded && info.belongs(to: ThreadsSite())
            && (ThreadsSite.code(info.url) ?? ThreadsSite.code(info.requestURL)) != nil
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the page's post JSON")
        guard let code = ThreadsSite.code(payload.info.url) ?? ThreadsSite.code(payload.info.requestURL) else { return ResultSet() }
        var post: JSONValue?
        json.walk { value in
            guard post == nil, value["code"]?.string == code, value["pk"] != nil || value["id"] != nil else { return }
            post = value
        }
        // Most blobs of the page are its interface's: only the one holding the post answers.
        guard let post else { return ResultSet() }
        var set = ResultSet(media: Self.media(of: post, parser: name, payload: payload))
        set.isDefinitive = true
        return set
    }

    static func media(of post: JSONValue, parser: String, payload: Payload) -> [Media] {
        let title = post["caption"]?["text"]?.string
        let items = (post["carousel_media"]?.array).map { $0 } ?? [post]
        var results = items.compactMap { item -> Media? in
            var files = SiteMedia()
            files.title = title
            files.caption = item["accessibility_caption"]?.string
            for version in item["video_versions"]?.array ?? [] {
                files.add(
                    version["url"]?.string, name: version["type"]?.number.map { "type-\($0)" }, mimeType: "video/mp4",
                    width: version["width"]?.number ?? item["original_width"]?.number,
                    height: version["height"]?.number ?? item["original_height"]?.number)
            }
            // Photos are stills; they are the video's still when there is one.
            for candidate in item["image_versions2"]?["candidates"]?.array ?? [] {
                files.addStill(candidate["url"]?.string, width: candidate["width"]?.number, height: candidate["height"]?.number)
            }
            return files.media(parser: parser, payload: payload)
        }
        for info in [post["giphy_media_info"], post["text_post_app_info"]?["giphy_media_info"]].compactMap({ $0 }) where info.object != nil {
            var files = SiteMedia()
            files.title = title
            let images = info["first_party_cdn_proxied_images"]?.object != nil ? info["first_party_cdn_proxied_images"] : info["images"]
            for (name, image) in (images?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
                let width = image["width"]?.number, height = image["height"]?.number
                files.add(image["url"]?.string, name: name, mimeType: "image/gif", width: width, height: height)
                files.add(image["mp4"]?.string, name: name, mimeType: "video/mp4", width: width, height: height)
                files.add(image["webp"]?.string, name: name, mimeType: "image/webp", width: width, height: height)
            }
            if let media = files.media(parser: parser, payload: payload) { results.append(media) }
        }
        return results
    }
}
