package import TrawlCore

/// oEmbed JSON (`{"version": "1.0", "type": "photo" | "video" | …}`): a `photo`'s `url` when it
/// is animated, and for any type an animated `url` or `thumbnail_url`; `title`, `width`,
/// `height`. A `video`'s `html` is a player page, not a file, and is not a result.
package struct OEmbedParser: Parser {
    package let name = "oembed"
    package let stage = ParserStage.generic

    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        if case .followUp(let reason) = info.origin, reason == "oembed" { return true }
        return info.isJSON && (info.url.path.contains("oembed") || info.contentType == "application/json+oembed")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "oEmbed response")
        guard json["type"]?.string != nil || json["version"] != nil else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no oEmbed 'type' or 'version'")
        }
        let base = payload.info.url.absoluteString
        let title = json["title"]?.string
        var collection = MediaCollection()
        let thumbnail = json["thumbnail_url"]?.string.flatMap { URLResolver.resolve($0, base: base) }
        for key in ["url", "thumbnail_url"] {
            guard let url = json[key]?.string.flatMap({ URLResolver.resolve($0, base: base) }) else { continue }
            let sized = key == "url"
            let hints = MediaHints(
                url: url, width: sized ? json["width"]?.int : json["thumbnail_width"]?.int,
                height: sized ? json["height"]?.int : json["thumbnail_height"]?.int)
            guard hints.isAnimatedMedia else { continue }
            var media = hints.media(
                parser: name, payload: payload, title: title,
                still: thumbnail == url ? nil : thumbnail.flatMap { MediaKind(urlString: $0) == .still ? $0 : nil })
            media.page = json["web_page"]?.string ?? media.page
            collection.insert(media)
        }
        return ResultSet(media: collection.media)
    }
}
