package import TrawlCore

/// Twitter (X) cards: `twitter:player:stream` (the raw video of a player card) and an animated
/// `twitter:image`; a still `twitter:image` becomes the still of the stream.
package struct TwitterCardParser: Parser {
    package let name = "twitter-card"
    package let stage = ParserStage.generic

    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool { info.isHTMLDocument }

    package func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        let title = document.firstMeta("twitter:title") ?? document.firstMeta("og:title") ?? document.title
        let images = (document.meta("twitter:image") + document.meta("twitter:image:src")).compactMap(document.resolve)
        let stillImage = images.first { MediaKind(urlString: $0) == .still || MediaKind(urlString: $0) == nil }
        var collection = MediaCollection()
        for stream in document.meta("twitter:player:stream").compactMap(document.resolve) {
            let hints = MediaHints(
                url: stream, mimeType: document.firstMeta("twitter:player:stream:content_type"),
                width: document.firstMeta("twitter:player:width").flatMap { Int($0) },
                height: document.firstMeta("twitter:player:height").flatMap { Int($0) })
            if hints.isAnimatedMedia || hints.kind == nil {
                var media = hints.media(parser: name, payload: payload, title: title, still: stillImage)
                if hints.kind == nil { media.kind = .video }
                collection.insert(media)
            }
        }
        for (index, image) in images.enumerated() {
            // twitter:image:width and :height describe the first image only.
            let hints = MediaHints(
                url: image, width: index == 0 ? document.firstMeta("twitter:image:width").flatMap { Int($0) } : nil,
                height: index == 0 ? document.firstMeta("twitter:image:height").flatMap { Int($0) } : nil)
            if hints.isAnimatedMedia { collection.insert(hints.media(parser: name, payload: payload, title: title)) }
        }
        return ResultSet(media: collection.media)
    }
}
