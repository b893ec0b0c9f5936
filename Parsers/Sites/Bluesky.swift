package import Foundation
package import TrawlCore

/// Bluesky: a post page is read as the public AppView's thread of that post alone (no
/// replies, no parents):
///
/// | URL | read as |
/// |---|---|
/// | `https://bsky.app/profile/bsky.app/post/3l6oveex3ii2l` | `https://public.api.bsky.app/xrpc/app.bsky.feed.getPostThread?uri=at://bsky.app/app.bsky.feed.post/3l6oveex3ii2l&depth=0&parentHeight=0` |
/// | `https://bsky.app/profile/did:plc:z72i7hdynmk6r22z27h6tvur/post/3l6oveex3ii2l` | the same, by DID |
///
/// The post's `embed` view holds its media: `app.bsky.embed.video#view` (an HLS `playlist`,
/// its `thumbnail` and `aspectRatio`), `app.bsky.embed.images#view` (re-encoded stills: no
/// animated media), `app.bsky.embed.external#view` whose `uri` is a GIF (the GIF picker posts
/// Tenor's `media.tenor.com/…/x.gif?hh=H&ww=W`, or Giphy's), and
/// `app.bsky.embed.recordWithMedia#view`, whose `media` is the post's and whose `record` is
/// another post it quotes — not this post's media, like `app.bsky.embed.record#view`.
package struct BlueskySite: Site {
    package let name = "bluesky"
    package let hosts = ["bsky.app"]
    package var parsers: [any Parser] { [BlueskyPostParser()] }
    package init() {}

    /// `(actor, rkey)` of `/profile/ACTOR/post/RKEY`.
    static func post(_ url: URL) -> (actor: String, rkey: String)? {
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count >= 4, parts[0] == "profile", parts[2] == "post", !parts[1].isEmpty,
            parts[3].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        return (parts[1], parts[3])
    }

    package func rewrite(_ url: URL) -> [URL] {
        guard let host = url.host?.lowercased(), host == "bsky.app" || host == "www.bsky.app", let (actor, rkey) = Self.post(url) else { return [] }
        var components = URLComponents(string: "https://public.api.bsky.app/xrpc/app.bsky.feed.getPostThread")!
        components.queryItems = [
            URLQueryItem(name: "uri", value: "at://\(actor)/app.bsky.feed.post/\(rkey)"),
            URLQueryItem(name: "depth", value: "0"), URLQueryItem(name: "parentHeight", value: "0"),
        ]
        return [components.url].compactMap { $0 }
    }
}

/// The post of a `getPostThread` answer (`thread.post`), or of `getPosts` (`posts[]`).
package struct BlueskyPostParser: Parser {
    package let name = "bluesky-post"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.isFetched && info.belongs(to: BlueskySite()) && info.url.path.hasPrefix("/xrpc/app.bsky.feed.")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the thread JSON")
        let posts: [JSONValue]
        if let thread = json["thread"] {
            guard let post = thread["post"] else {
                // `#notFoundPost`, `#blockedPost`: an answer, with nothing to show.
                var set = ResultSet()
                set.isDefinitive = thread["notFound"]?.bool == true || thread["blocked"]?.bool == true
                return set
            }
            posts = [post]
        } else if let list = json["posts"]?.array {
            posts = list
        } else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "neither a thread nor a list of posts")
        }
        var set = ResultSet(media: posts.flatMap { Self.media(of: $0, parser: name, payload: payload) })
        set.isDefinitive = true
        return set
    }

    static func media(of post: JSONValue, parser: String, payload: Payload) -> [Media] {
        // A post of a GIF alone has empty text: the link's title stands in.
        let title = post["record"]?["text"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        var media = media(ofEmbed: post["embed"], title: title, parser: parser, payload: payload)
        if let page = pageURL(post) { for index in media.indices { media[index].page = page } }
        return media
    }

    /// `https://bsky.app/profile/HANDLE/post/RKEY` of a post view.
    static func pageURL(_ post: JSONValue) -> String? {
        guard let uri = post["uri"]?.string, let rkey = uri.split(separator: "/").last else { return nil }
        let actor = post["author"]?["handle"]?.string ?? uri.dropFirst("at://".count).split(separator: "/").first.map(String.init)
        return actor.map { "https://bsky.app/profile/\($0)/post/\(rkey)" }
    }

    static func media(ofEmbed embed: JSONValue?, title: String?, parser: String, payload: Payload) -> [Media] {
        guard let embed, let type = embed["$type"]?.string else { return [] }
        var files = SiteMedia()
        files.title = title
        switch type {
        case "app.bsky.embed.video#view":
            let ratio = embed["aspectRatio"]
            files.caption = embed["alt"]?.string
            files.add(
                embed["playlist"]?.string, name: "hls", mimeType: "application/x-mpegurl",
                width: ratio?["width"]?.number, height: ratio?["height"]?.number)
            files.addStill(embed["thumbnail"]?.string, width: ratio?["width"]?.number, height: ratio?["height"]?.number)
        case "app.bsky.embed.images#view":
            // Images are re-encoded stills (`@jpeg`): a file counts only if it is animated.
            return (embed["images"]?.array ?? []).compactMap { image in
                var files = SiteMedia()
                files.title = title
                files.caption = image["alt"]?.string
                let ratio = image["aspectRatio"]
                files.add(image["fullsize"]?.string, name: "fullsize", width: ratio?["width"]?.number, height: ratio?["height"]?.number)
                files.addStill(image["thumb"]?.string)
                return files.media(parser: parser, payload: payload)
            }
        case "app.bsky.embed.external#view":
            let external = embed["external"]
            guard let uri = external?["uri"]?.string, let gif = gifLink(uri) else { return [] }
            files.title = title ?? external?["title"]?.string
            files.caption = external?["description"]?.string
            files.add(uri, name: "gif", mimeType: "image/gif", width: gif.width, height: gif.height)
            files.addStill(external?["thumb"]?.string)
        case "app.bsky.embed.recordWithMedia#view":
            // The media are this post's; the record is the post it quotes.
            return media(ofEmbed: embed["media"], title: title, parser: parser, payload: payload)
        default:
            // `app.bsky.embed.record#view`: only a quoted post, another post's media.
            return []
        }
        return [files.media(parser: parser, payload: payload)].compactMap { $0 }
    }

    /// A GIF link the GIF picker posts: a `.gif` on Tenor's or Giphy's media hosts, with the
    /// size Bluesky's picker puts in `hh`/`ww`.
    static func gifLink(_ uri: String) -> (width: Int?, height: Int?)? {
        guard let components = URLComponents(string: uri), let host = components.host?.lowercased(),
            host.hasSuffix("tenor.com") || host.hasSuffix("giphy.com"), components.path.lowercased().hasSuffix(".gif")
        else { return nil }
        let items = components.queryItems ?? []
        func value(_ name: String) -> Int? { items.first { $0.name == name }?.value.flatMap { Int($0) } }
        return (value("ww"), value("hh"))
    }
}
