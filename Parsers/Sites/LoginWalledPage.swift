import Foundation
import TrawlCore

/// What a page behind a login wall (Instagram, Facebook) shows to anyone: the video its
/// metadata or its public embed names (`og:video`; `video_url`, `hd_src`, `playable_url` in the
/// embed's script state, however deeply its JSON is escaped), else the still it names — a
/// *degraded* answer for a post that says it is a video, nothing for a post that says it is a
/// picture — else, when the page names nothing at all (the login form), the note that nothing
/// is public (``NotPublicError``).
struct LoginWalledPage {
    /// Keys of a playable file in the page's script state, best first.
    var videoKeys: [String]
    /// Keys of the still (a photo, or a video's poster).
    var stillKeys: [String]
    /// Keys whose `true` says the post is a video.
    var videoFlags: [String]

    /// - Parameter knownVideo: the URL alone says the post is a video (a reel, a video page).
    func parse(_ payload: Payload, parser: String, knownVideo: Bool = false) -> ResultSet {
        let text = String(decoding: payload.body, as: UTF8.self)
        let document = payload.document
        var files = SiteMedia()
        files.title = document?.firstMeta("og:title") ?? document?.firstMeta("og:description")
        let width = document?.firstMeta("og:video:width").flatMap { Int($0) }, height = document?.firstMeta("og:video:height").flatMap { Int($0) }
        for key in ["og:video:secure_url", "og:video", "og:video:url"] {
            for value in document?.meta(key) ?? [] { files.add(document?.resolve(value), name: key, mimeType: "video/mp4", width: width, height: height) }
        }
        for key in videoKeys {
            for value in Self.strings(for: key, in: text) { files.add(value, name: key, mimeType: "video/mp4") }
        }
        if let media = files.media(parser: parser, payload: payload) {
            var set = ResultSet(media: [media])
            set.isDefinitive = true
            return set
        }
        let still =
            document?.firstMeta("og:image").flatMap { document?.resolve($0) }
            ?? stillKeys.lazy.compactMap { Self.strings(for: $0, in: text).first }.first
        let saysVideo =
            knownVideo || document?.firstMeta("og:type")?.hasPrefix("video") == true
            || videoFlags.contains { Self.flag($0, in: text) }
        guard let still else {
            var set = ResultSet(diagnostics: [NotPublicError.note(parser: parser, reason: "the page names no media, only a login form")])
            set.isDefinitive = true
            return set
        }
        guard saysVideo else {
            // A picture post: no media, and nothing to guess from the page's text.
            var set = ResultSet(diagnostics: [Diagnostic(.info, "the post is a picture", source: parser)])
            set.isDefinitive = true
            return set
        }
        // A video whose file is shown only to people logged in: its still is all there is.
        var media = MediaHints(url: still).media(parser: parser, payload: payload, title: files.title)
        media.kind = .still
        var set = ResultSet(media: [media])
        set.isDefinitive = true
        set.degradation = Degradation(
            failures: [Degradation.Failure(parser: parser, reason: "the video is shown only to people logged in: its still stands in")], answeredBy: parser)
        return set
    }

    /// Every string value of `key` in a script's text, whether written as JSON (`"key":"v"`) or
    /// as JSON inside a JS string (`\"key\":\"v\"`, once or twice escaped), unescaped.
    static func strings(for key: String, in text: String) -> [String] {
        var values: [String] = []
        var searchStart = text.startIndex
        while let found = text.range(of: key, range: searchStart..<text.endIndex) {
            searchStart = found.upperBound
            var index = found.upperBound
            // `"key":"` with any run of backslashes (or spaces) before each quote and colon.
            func skip(_ character: Character) -> Bool {
                while index < text.endIndex, text[index] == "\\" || text[index] == " " { index = text.index(after: index) }
                guard index < text.endIndex, text[index] == character else { return false }
                index = text.index(after: index)
                return true
            }
            guard skip("\""), skip(":"), skip("\"") else { continue }
            var raw = ""
            while index < text.endIndex, text[index] != "\"" {
                raw.append(text[index])
                index = text.index(after: index)
            }
            // Trailing backslashes escaped the closing quote's level, not the value.
            while raw.hasSuffix("\\") { raw.removeLast() }
            let value = unescape(raw)
            if value.hasPrefix("http"), !values.contains(value) { values.append(value) }
        }
        return values
    }

    /// `\/`, `\\u0026`, `\u0026` … until no escape is left.
    static func unescape(_ raw: String) -> String {
        var value = raw
        for _ in 0..<3 where value.contains("\\") {
            let once = value.replacingOccurrences(of: "\\\\", with: "\\")
            guard let decoded = try? JSONValue(parsing: "\"" + once.replacingOccurrences(of: "\"", with: "\\\"") + "\"").string else { break }
            value = decoded
        }
        return Unescape.htmlEntities(value)
    }

    /// Whether the text says `"key": true` (escaped or not).
    static func flag(_ key: String, in text: String) -> Bool {
        let compact = text.replacingOccurrences(of: "\\", with: "").replacingOccurrences(of: " ", with: "")
        return compact.contains("\"\(key)\":true")
    }
}
