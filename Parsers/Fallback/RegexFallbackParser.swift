import Foundation
package import TrawlCore

/// The last resort: finds media-looking URLs in any text — HTML, JSON, JavaScript — escaped or
/// not (`https:\/\/…`, `\u0026`, `&amp;`, protocol-relative `//host/…`).
///
/// A URL counts when its path ends in `.gif`, `.gifv`, `.mp4`, `.webm`, `.webp` or `.apng`, or
/// when it is on a host that serves only media (`v.redd.it`, `video.twimg.com`, …). The scan is
/// one pass over the bytes with no backtracking, so a 30 MB single-line page costs one read.
package struct RegexFallbackParser: Parser {
    package let name = "regex-fallback"
    package let stage = ParserStage.fallback
    /// At most this many results per payload.
    package var limit: Int

    package init(limit: Int = 500) { self.limit = limit }

    package func canParse(_ info: PayloadInfo) -> Bool {
        guard let type = info.contentType else { return true }
        return !(type.hasPrefix("image/") || type.hasPrefix("video/") || type.hasPrefix("audio/") || type == "application/octet-stream")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        // A JSON document is read by its structure (``StateMediaParser``): the URLs the text
        // scan would add are the ones the structure says belong elsewhere (a user's profile
        // images, a quoted post, a comment's text).
        if payload.info.isJSON, (try? JSONValue(parsing: payload.body)) != nil { return ResultSet() }
        let found =
            payload.overflow.map { Self.urls(in: $0.candidates, limit: limit) }
            ?? payload.body.withUnsafeBytes { Self.scan($0.bindMemory(to: UInt8.self), limit: limit) }
        let media = found.map { url -> Media in
            var media = MediaHints(url: url).media(parser: name, payload: payload)
            // Imgur's `.gifv` is a page around the MP4 of the same name: the MP4 is the file,
            // the `.gifv` what the page linked.
            if MediaKind.pathExtension(of: url) == "gifv", let dot = url.range(of: ".gifv", options: .backwards) {
                media.url.replaceSubrange(dot, with: ".mp4")
                media.renditions = [Rendition(url: url, kind: .mp4)]
            }
            return media
        }
        return ResultSet(media: media)
    }

    /// Media URLs in `text`, normalised, each once, in order of first appearance.
    static func scan(_ text: UnsafeBufferPointer<UInt8>, limit: Int) -> [String] {
        guard limit > 0 else { return [] }
        var results: [String] = []
        var seen = Set<String>()
        _ = MediaURLScan.scan(text) { start, end in
            let raw = String(decoding: UnsafeBufferPointer(rebasing: text[start..<end]), as: UTF8.self)
            if let url = mediaURL(raw), seen.insert(CanonicalURL.keyOfNormalized(url)).inserted { results.append(url) }
            return results.count < limit
        }
        return results
    }

    /// The media URLs among `candidates` (a scan of a text that was not kept whole), as
    /// ``scan(_:limit:)`` of that text finds them.
    static func urls(in candidates: [MediaURLCandidate], from offset: Int = 0, limit: Int) -> [String] {
        var results: [String] = []
        var seen = Set<String>()
        for candidate in candidates where candidate.offset >= offset {
            guard results.count < limit else { break }
            if let url = mediaURL(candidate.raw), seen.insert(CanonicalURL.keyOfNormalized(url)).inserted { results.append(url) }
        }
        return results
    }

    static func mayBeMedia(_ text: UnsafeBufferPointer<UInt8>, hostStart: Int, end: Int) -> Bool {
        MediaURLScan.mayBeMedia(text, hostStart: hostStart, end: end)
    }

    /// The normalised URL if it names a media file, else nil.
    static func mediaURL(_ raw: String) -> String? {
        var url = CanonicalURL.normalize(raw)
        while let last = url.last, ".,;:!".contains(last) { url.removeLast() }
        guard let host = KnownMediaHosts.host(of: url), host.contains(".") else { return nil }
        // The kind comes from the extension, or (extensionless) from a video-only host.
        let hints = MediaHints(url: url)
        guard hints.isAnimatedMedia, !Decorations.isDecoration(url, width: nil, height: nil), !Decorations.isAdOrTracker(url),
            hints.kind != .webp || KnownMediaHosts.servesAnimatedWebP(url)
        else { return nil }
        return url
    }
}
