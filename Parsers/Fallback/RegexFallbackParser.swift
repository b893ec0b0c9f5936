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
        let found = payload.body.withUnsafeBytes { Self.scan($0.bindMemory(to: UInt8.self), limit: limit) }
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
    ///
    /// Every URL form it reads has a slash pair (`://`, `:\/\/`, `//host`), so it jumps from
    /// slash to slash with `memchr` and looks around each one.
    static func scan(_ text: UnsafeBufferPointer<UInt8>, limit: Int) -> [String] {
        guard let base = text.baseAddress else { return [] }
        var results: [String] = []
        var seen = Set<String>()
        let n = text.count
        var i = 0
        while i < n && results.count < limit {
            guard let found = memchr(base + i, Int32(UInt8(ascii: "/")), n - i) else { break }
            let slash = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            i = slash + 1
            var start = -1
            var hostStart = -1
            var colon = -1
            if slash >= 1, slash + 1 < n, text[slash - 1] == UInt8(ascii: ":"), text[slash + 1] == UInt8(ascii: "/") {
                colon = slash - 1  // "://"
                hostStart = slash + 2
            } else if slash >= 2, slash + 2 < n, text[slash - 1] == UInt8(ascii: "\\"), text[slash - 2] == UInt8(ascii: ":"),
                text[slash + 1] == UInt8(ascii: "\\"), text[slash + 2] == UInt8(ascii: "/")
            {
                colon = slash - 2  // the JSON-escaped ":\/\/"
                hostStart = slash + 3
            } else if slash > 0, slash + 2 < n, text[slash + 1] == UInt8(ascii: "/"),
                text[slash - 1] == UInt8(ascii: "\"") || text[slash - 1] == UInt8(ascii: "'") || text[slash - 1] == UInt8(ascii: "(")
                    || text[slash - 1] == UInt8(ascii: "="),
                isHostByte(text[slash + 2])
            {
                start = slash  // protocol-relative "//host"
                hostStart = slash + 2
            }
            if colon >= 0 {
                var s = colon
                while s > 0, colon - s < 5, isLetter(text[s - 1]) { s -= 1 }
                guard isHTTPScheme(text, s..<colon) else { continue }
                start = s
            }
            guard start >= 0 else { continue }
            let end = urlEnd(text, from: hostStart)
            i = max(end, slash + 1)
            guard end - start < 4096, mayBeMedia(text, hostStart: hostStart, end: end) else { continue }
            let raw = String(decoding: UnsafeBufferPointer(rebasing: text[start..<end]), as: UTF8.self)
            guard let url = mediaURL(raw), seen.insert(CanonicalURL.keyOfNormalized(url)).inserted else { continue }
            results.append(url)
        }
        return results
    }

    /// `http` or `https`, any case.
    static func isHTTPScheme(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        matches(text, range, "http") || matches(text, range, "https")
    }

    /// The end of a URL that starts before `from`: the first byte no URL holds unescaped.
    static func urlEnd(_ text: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        var j = from
        let n = text.count
        while j < n {
            let c = text[j]
            if c <= 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">")
                || c == UInt8(ascii: "`") || c == UInt8(ascii: "{") || c == UInt8(ascii: "}") || c == UInt8(ascii: "|")
                || c == UInt8(ascii: "^")
            {
                return j
            }
            if c == UInt8(ascii: "\\") {
                // Keep JSON escapes that belong to the URL (\/ and \u0026); end at any other.
                if j + 1 < n, text[j + 1] == UInt8(ascii: "/") { j += 2; continue }
                if j + 5 < n, text[j + 1] == UInt8(ascii: "u"), text[j + 2] == UInt8(ascii: "0"), text[j + 3] == UInt8(ascii: "0") {
                    // \u0022 is a quote and \u003c a '<': both end the URL.
                    let a = text[j + 4], b = text[j + 5] | 0x20
                    if (a == UInt8(ascii: "2") && b == UInt8(ascii: "2")) || (a == UInt8(ascii: "3") && (b == UInt8(ascii: "c") || b == UInt8(ascii: "e"))) {
                        return j
                    }
                    j += 6
                    continue
                }
                return j
            }
            if c == UInt8(ascii: "&"), j + 5 < n, text[j + 1] == UInt8(ascii: "q"), text[j + 2] == UInt8(ascii: "u"),
                text[j + 3] == UInt8(ascii: "o"), text[j + 4] == UInt8(ascii: "t"), text[j + 5] == UInt8(ascii: ";")
            {
                return j
            }
            if c == UInt8(ascii: ")") || c == UInt8(ascii: "]") { return j }
            j += 1
        }
        return n
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

    /// A byte-level pre-check that ``mediaURL(_:)`` could accept the URL: its path ends in an
    /// animated-media extension or its host serves only video. Most URLs on a page are links
    /// and scripts; rejecting them here skips building, unescaping and normalising a String.
    static func mayBeMedia(_ text: UnsafeBufferPointer<UInt8>, hostStart: Int, end: Int) -> Bool {
        var hostEnd = hostStart
        while hostEnd < end, text[hostEnd] != UInt8(ascii: "/"), text[hostEnd] != UInt8(ascii: "\\"),
            text[hostEnd] != UInt8(ascii: "?"), text[hostEnd] != UInt8(ascii: "#"), text[hostEnd] != UInt8(ascii: ":")
        {
            hostEnd += 1
        }
        if matches(text, hostStart..<hostEnd, "v.redd.it") || matches(text, hostStart..<hostEnd, "video.twimg.com") { return true }
        var pathEnd = hostEnd
        while pathEnd < end, text[pathEnd] != UInt8(ascii: "?"), text[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        // mediaURL strips trailing punctuation before it reads the extension.
        while pathEnd > hostEnd, trailingPunctuation.contains(text[pathEnd - 1]) { pathEnd -= 1 }
        var dot = pathEnd
        while dot > hostEnd, text[dot - 1] != UInt8(ascii: "."), text[dot - 1] != UInt8(ascii: "/"), pathEnd - dot <= 5 { dot -= 1 }
        guard dot > hostEnd, text[dot - 1] == UInt8(ascii: ".") else { return false }
        return animatedExtensions.contains { matches(text, dot..<pathEnd, $0) }
    }

    private static let trailingPunctuation: [UInt8] = Array(".,;:!".utf8)
    private static let animatedExtensions: [StaticString] = ["gif", "gifv", "mp4", "m4v", "mov", "webm", "webp", "apng"]

    /// Whether `text[range]` equals the ASCII `word`, ignoring case.
    private static func matches(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        let w = word.utf8Start
        for k in 0..<range.count where text[range.lowerBound + k] | 0x20 != w[k] | 0x20 { return false }
        return true
    }

    static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }

    static func isHostByte(_ c: UInt8) -> Bool {
        isLetter(c) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }
}
