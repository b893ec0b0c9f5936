package import TrawlCore

/// schema.org microdata in `<meta itemprop>`: `contentURL` / `embedURL` when they name a
/// media file, `thumbnailURL` as the still, `width` / `height`, `name`.
package struct MicrodataParser: Parser {
    package let name = "microdata"
    package let stage = ParserStage.generic

    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool { info.isHTMLDocument }

    package func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        let still = document.firstMeta("thumbnailurl").flatMap(document.resolve)
        let title = document.firstMeta("name") ?? document.firstMeta("og:title") ?? document.title
        var collection = MediaCollection()
        for key in ["contenturl", "embedurl"] {
            for value in document.meta(key) {
                guard let url = document.resolve(value) else { continue }
                // The page's one width and height describe its first media, not every file.
                let first = collection.media.isEmpty
                let hints = MediaHints(
                    url: url, width: first ? document.firstMeta("width").flatMap { Int($0) } : nil,
                    height: first ? document.firstMeta("height").flatMap { Int($0) } : nil)
                guard hints.isAnimatedMedia else { continue }
                collection.insert(hints.media(parser: name, payload: payload, title: title, still: still))
            }
        }
        return ResultSet(media: collection.media)
    }
}
