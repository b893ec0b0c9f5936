import TrawlCore

/// What a parser knows about one media file before it becomes a ``Media``.
struct MediaHints {
    var url: String
    var mimeType: String?
    var width: Int?
    var height: Int?
    var byteSize: Int?

    /// The kind: the declared type first, else the URL's extension, else a known host's habit.
    var kind: MediaKind? {
        if let mimeType, let kind = MediaKind(mimeType: mimeType) { return kind }
        if let kind = MediaKind(urlString: url) { return kind }
        return KnownMediaHosts.kind(of: url)
    }

    /// Whether this is a file a player would play as a GIF, not a page, a stream or a still.
    var isAnimatedMedia: Bool {
        guard let kind, kind.isAnimated else { return false }
        return !url.utf8.prefix(5).elementsEqual("blob:".utf8, by: { $0 | 0x20 == $1 })
            && !url.containsASCII(".m3u8", ignoringCase: true) && !url.containsASCII(".mpd", ignoringCase: true)
    }

    func media(parser: String, payload: Payload, title: String? = nil, still: String? = nil) -> Media {
        Media(
            url: url, kind: kind ?? .unknown, width: width, height: height, byteSize: byteSize, title: title, still: still,
            page: payload.info.url.absoluteString,
            provenance: Provenance(parser: parser, origin: payload.info.origin, payloadURL: payload.info.url.absoluteString))
    }

    func rendition(name: String? = nil) -> Rendition {
        Rendition(url: url, kind: kind ?? .unknown, width: width, height: height, byteSize: byteSize, name: name)
    }
}

/// Hosts that serve GIF-like media without telling by extension.
enum KnownMediaHosts {
    static func host(of url: String) -> Substring? {
        guard let schemeEnd = url.firstRange(ofASCII: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        return rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != ":" }
    }

    /// Most WebP `<img>`s on the web are still thumbnails; these hosts serve animated ones (or
    /// say so in the name).
    static func servesAnimatedWebP(_ url: String) -> Bool {
        guard let host = host(of: url)?.lowercased() else { return false }
        let hosts = ["giphy.com", "tenor.com", "imgur.com", "redd.it", "9cache.com", "gfycat.com", "tumblr.com"]
        if hosts.contains(where: { host == $0 || host.hasSuffix("." + $0) }) { return true }
        return url.containsASCII("gif", ignoringCase: true) || url.containsASCII("anim", ignoringCase: true)
    }

    /// `v.redd.it/ID` and `video.twimg.com/…` are videos even without `.mp4`.
    static func kind(of url: String) -> MediaKind? {
        guard let host = host(of: url)?.lowercased() else { return nil }
        if host == "v.redd.it" { return .video }
        if host == "video.twimg.com" { return .mp4 }
        return nil
    }
}

/// Tracking pixels and spinners: GIFs that are not what a page is about.
enum Decorations {
    static func isDecoration(_ url: String, width: Int?, height: Int?) -> Bool {
        if let width, width < 40 { return true }
        if let height, height < 40 { return true }
        let name = url.lowercased().split(separator: "?").first?.split(separator: "/").last ?? ""
        let decorative = ["spacer", "blank", "pixel", "clear", "cleardot", "loading", "loader", "spinner", "transparent", "1x1", "trans", "ajax-loader", "px", "beacon", "track", "tracking"]
        return decorative.contains { name.hasPrefix($0 + ".") || name == "\($0).gif" }
    }
}
