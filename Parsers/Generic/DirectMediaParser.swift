package import TrawlCore

/// A pasted link to the file itself (`i.giphy.com/ID.gif`, `i.imgur.com/ID.mp4`): the payload
/// is the media, and its URL is the result.
package struct DirectMediaParser: Parser {
    package let name = "direct-media"
    package let stage = ParserStage.generic
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        guard let type = info.contentType, let kind = MediaKind(mimeType: type) else { return false }
        return kind.isAnimated
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let hints = MediaHints(
            url: payload.info.url.absoluteString, mimeType: payload.info.contentType, byteSize: payload.body.isEmpty ? nil : payload.body.count)
        guard hints.isAnimatedMedia else { return ResultSet() }
        var media = hints.media(parser: name, payload: payload)
        (media.width, media.height) = Self.gifSize(payload.body) ?? (nil, nil)
        return ResultSet(media: [media])
    }

    /// A GIF's logical screen size, from its header.
    static func gifSize(_ body: some Collection<UInt8>) -> (Int, Int)? {
        let head = Array(body.prefix(10))
        guard head.count == 10, head[0] == 0x47, head[1] == 0x49, head[2] == 0x46 else { return nil }
        return (Int(head[6]) | Int(head[7]) << 8, Int(head[8]) | Int(head[9]) << 8)
    }
}
