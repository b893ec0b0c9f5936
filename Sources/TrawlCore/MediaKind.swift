/// What a media file is, as far as Trawl can tell from its URL or declared type.
public enum MediaKind: String, Sendable, Hashable, Codable, CaseIterable {
    case gif, mp4, webm, webp, apng
    /// A video of another or unknown container.
    case video
    /// An HLS playlist (`.m3u8`): a stream a player plays, for sources that offer no file.
    case hls
    /// A DASH manifest (`.mpd`).
    case dash
    /// A still picture (JPEG, PNG, …): used as a poster, never a result of its own.
    case still
    case unknown

    /// Whether a person would call this "a GIF": it moves.
    public var isAnimated: Bool {
        switch self {
        case .gif, .mp4, .webm, .webp, .apng, .video, .hls, .dash: true
        case .still, .unknown: false
        }
    }

    /// The kind a MIME type names (`image/gif`, `video/mp4; codecs=…`), if any.
    public init?(mimeType: String) {
        let type = mimeType.split(separator: ";").first.map { $0.trimmedWhitespace.lowercased() } ?? ""
        switch type {
        case "image/gif": self = .gif
        case "video/mp4", "video/quicktime": self = .mp4
        case "video/webm": self = .webm
        case "image/webp": self = .webp
        case "image/apng": self = .apng
        case "image/jpeg", "image/jpg", "image/png", "image/avif", "image/bmp", "image/svg+xml": self = .still
        case "application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/mpegurl", "audio/x-mpegurl": self = .hls
        case "application/dash+xml": self = .dash
        default:
            if type.hasPrefix("video/") { self = .video } else { return nil }
        }
    }

    /// The kind a URL's path extension names, if any (`.gifv` is Imgur's MP4 page: `.mp4`).
    ///
    /// An image CDN's format parameter outranks the extension: `x.gif?fm=jpg` (Reddit's
    /// previews, imgix) is a JPEG made from the GIF, `x.gif?fm=mp4` its MP4; a still stays a
    /// still in any format (`x.png?fm=webp`).
    public init?(urlString: String) {
        let byExtension = MediaKind.pathExtension(of: urlString).flatMap(MediaKind.init(extension:))
        // Re-encoding a still (`photo.png?fm=webp`) never makes it move.
        if byExtension != .still, let format = MediaKind.formatParameter(of: urlString), let kind = MediaKind(extension: format) {
            self = kind
            return
        }
        guard let byExtension else { return nil }
        self = byExtension
    }

    /// The kind a file extension (lower case, no dot) names, if any.
    init?(extension ext: String) {
        switch ext {
        case "gif": self = .gif
        case "gifv", "mp4", "m4v", "mov": self = .mp4
        case "webm": self = .webm
        case "webp": self = .webp
        case "apng": self = .apng
        case "jpg", "jpeg", "png", "avif", "bmp": self = .still
        case "m3u8": self = .hls
        case "mpd": self = .dash
        default: return nil
        }
    }

    /// The value of an image CDN's output-format query parameter (`fm=`, `format=`), lower
    /// cased, when it names a file format (`format=redirect` does not).
    static func formatParameter(of urlString: String) -> String? {
        let utf8 = urlString.utf8
        guard let question = utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        var query = utf8[utf8.index(after: question)...]
        if let hash = query.firstIndex(of: UInt8(ascii: "#")) { query = query[..<hash] }
        for pair in query.split(separator: UInt8(ascii: "&")) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: pair[..<equals], as: UTF8.self).lowercased()
            guard name == "fm" || name == "format" else { continue }
            let value = String(decoding: pair[pair.index(after: equals)...], as: UTF8.self).lowercased()
            if MediaKind(extension: value) != nil || value == "pjpg" { return value == "pjpg" ? "jpg" : value }
        }
        return nil
    }

    /// The lower-cased extension of a URL's path: no query, no fragment.
    public static func pathExtension(of urlString: String) -> String? {
        // Read as UTF-8 bytes: every delimiter is ASCII, and Character indexing cost more than
        // the rest of a parser's work on image-heavy pages.
        let utf8 = urlString.utf8
        var path = utf8[...]
        if let cut = path.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { path = path[..<cut] }
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let last = path[path.index(after: slash)...]
        guard let dot = last.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let ext = last[last.index(after: dot)...]
        guard !ext.isEmpty, ext.count <= 5 else { return nil }
        return String(decoding: ext, as: UTF8.self).lowercased()
    }
}
