import TrawlCore

/// What a parser knows about one media file before it becomes a ``Media``.
struct MediaHints {
    var url: String
    var mimeType: String?
    var width: Int?
    var height: Int?
    var byteSize: Int?

    /// The kind: the declared type first, else the URL's extension, else a known host's habit.
    /// A GIF site's named still (`giphy_s.gif`, `200w_s.gif`) is a still whatever its type.
    var kind: MediaKind? {
        if KnownMediaHosts.isNamedStill(url) { return .still }
        if let mimeType, let kind = MediaKind(mimeType: mimeType) { return kind }
        if let kind = MediaKind(urlString: url) { return kind }
        return KnownMediaHosts.kind(of: url)
    }

    /// Whether this is something a player would play as a GIF — a file, or an HLS/DASH
    /// playlist a page names (never a page, a still, or a `blob:` only the page can read).
    var isAnimatedMedia: Bool {
        guard let kind, kind.isAnimated else { return false }
        return !url.utf8.prefix(5).elementsEqual("blob:".utf8, by: { $0 | 0x20 == $1 })
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
        return url[schemeEnd.upperBound..<url.utf8Index(from: schemeEnd.upperBound) { URLByte.endsHost($0) || $0 == URLByte.colon }]
    }

    /// Most WebP `<img>`s on the web are still thumbnails; these hosts serve animated ones (or
    /// say so in the name).
    static func servesAnimatedWebP(_ url: String) -> Bool {
        guard let host = host(of: url)?.lowercased() else { return false }
        let hosts = ["giphy.com", "tenor.com", "imgur.com", "redd.it", "9cache.com", "gfycat.com", "tumblr.com"]
        if hosts.contains(where: { host.isHost(orBelow: $0) }) { return true }
        return url.containsASCII("gif", ignoringCase: true) || url.containsASCII("anim", ignoringCase: true)
    }

    /// `v.redd.it/ID/DASH_720` and `video.twimg.com/…` are videos even without `.mp4`; the
    /// bare host (a `preconnect` or `dns-prefetch` link) names no file, and `v.redd.it/ID` alone
    /// answers with a redirect to the post's page, not a video.
    static func kind(of url: String) -> MediaKind? {
        guard let host = host(of: url)?.lowercased(), hasFilePath(url) else { return nil }
        if host == "v.redd.it" { return pathSegmentCount(url) >= 2 ? .video : nil }
        if host == "video.twimg.com" { return .mp4 }
        return nil
    }
}

extension KnownMediaHosts {
    /// Giphy names the first frame of each rendition `NAME_s.gif` (`giphy_s.gif`,
    /// `200w_s.gif`, `480w_s.jpg`): a still GIF, not the animation.
    static func isNamedStill(_ url: String) -> Bool {
        guard url.containsASCII("_s.", ignoringCase: true), let host = host(of: url)?.lowercased(),
            host == "giphy.com" || host.hasSuffix(".giphy.com")
        else { return false }
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let name = path.split(separator: "/").last?.lowercased() else { return false }
        return name.hasSuffix("_s.gif") || name.hasSuffix("_s.webp") || name.hasSuffix("_s.jpg")
    }

    /// The UTF-8 bytes of the URL's path (from the host's end to the query or fragment).
    static func path(of url: String) -> Substring.UTF8View? {
        guard let schemeEnd = url.firstRange(ofASCII: "://") else { return nil }
        let start = url.utf8Index(from: schemeEnd.upperBound, to: URLByte.endsHost)
        return url[start..<url.utf8Index(from: start, to: URLByte.endsPath)].utf8
    }

    /// How many non-empty segments the URL's path has.
    static func pathSegmentCount(_ url: String) -> Int {
        guard let path = path(of: url) else { return 0 }
        var count = 0
        var previous = URLByte.slash
        for byte in path {
            if byte != URLByte.slash, previous == URLByte.slash { count += 1 }
            previous = byte
        }
        return count
    }

    /// Whether the URL's path names something below the root: not `https://host`, `…/` or `…/?q`.
    static func hasFilePath(_ url: String) -> Bool {
        path(of: url)?.contains { $0 != URLByte.slash } ?? false
    }
}

/// Tracking pixels, spinners, sprites, icons and ad banners: images that are not what a page
/// is about.
enum Decorations {
    static func isDecoration(_ url: String, width: Int?, height: Int?) -> Bool {
        if let width, width < 40 { return true }
        if let height, height < 40 { return true }
        // Read as bytes with ASCII letters in lower case: every name, word and folder compared is
        // ASCII, and this runs for every candidate URL of a page.
        let bytes = url.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        // The text before the query (a leading `?` skipped), in its non-empty segments.
        let start = bytes.firstIndex { $0 != URLByte.question } ?? bytes.endIndex
        let path = bytes[start..<(bytes[start...].firstIndex(of: URLByte.question) ?? bytes.endIndex)]
        let segments = path.split(separator: URLByte.slash)
        let name = segments.last ?? []
        if decorativeNames.contains(where: { name.starts(with: $0) }) { return true }
        // Words of the file's stem that only interface images carry (`ajax-spinner-32.gif`,
        // `icons_sprite.gif`, `tracking_pixel.gif`).
        let stem = name.split(separator: dot).first ?? name
        // Beacons are named in a letter or two and carry their report in the query (`l.gif?e=view`).
        if characterCount(stem) <= 2, name.suffix(4).elementsEqual(".gif".utf8), bytes.contains(URLByte.question) { return true }
        let words = stem.split { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == dot || $0 == UInt8(ascii: "@") }
        if words.contains(where: { word in
            interfaceWords.contains(String(decoding: word, as: UTF8.self)) || interfacePrefixes.contains { word.starts(with: $0.utf8) }
        }) {
            return true
        }
        // Folders that hold ads, tracking and interface art.
        return segments.dropLast().contains { interfaceFolders.contains(String(decoding: $0, as: UTF8.self)) }
    }

    private static let dot = UInt8(ascii: ".")

    /// File names that are interface images whatever their extension (`spacer.gif`, `1x1.png`).
    private static let decorativeNames: [[UInt8]] = [
        "spacer", "blank", "pixel", "clear", "cleardot", "loading", "loader", "spinner", "transparent", "1x1", "trans", "ajax-loader", "px", "beacon",
        "track", "tracking",
    ].map { Array($0.utf8) + [dot] }

    /// How many `Character`s `bytes` (valid UTF-8) hold.
    private static func characterCount(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? bytes.count : String(decoding: bytes, as: UTF8.self).count
    }

    static let interfaceWords: Set<String> = [
        "spinner", "sprite", "sprites", "spacer", "throbber", "preloader", "loader", "loading", "1x1", "beacon", "favicon", "icon",
        "icons", "pixel", "tracking", "tracker", "adbanner", "banner", "badge", "button", "btn", "logo", "avatar", "spaceball",
        "placeholder", "lazy", "lazyload", "blank", "grey", "gray",
    ]
    /// Words that mark an interface image with a suffix too (`logo2`, `icon_up`, `icons32`).
    static let interfacePrefixes = ["logo", "icon", "sprite", "spinner"]
    static let interfaceFolders: Set<String> = [
        "rsrc.php", "count", "counter", "log", "stat", "stats", "analytics", "metrics", "collect", "beacons",
        "ads", "adserver", "adservers", "banners", "banner", "tracking", "pixel", "pixels", "beacon", "icons", "sprites", "emoji", "emojis",
        "smilies", "avatars",
    ]

    /// Images served by ad networks and trackers, whatever they are called.
    static func isAdOrTracker(_ url: String) -> Bool {
        guard let host = KnownMediaHosts.host(of: url)?.lowercased() else { return false }
        if adHosts.contains(where: { host.isHost(orBelow: $0) }) { return true }
        let labels = host.split(separator: ".").dropLast()  // not the top-level domain
        if let first = labels.first, trackerFirstLabels.contains(String(first)) { return true }
        // Ad servers and trackers name themselves (`adsnative.com`, `vs.dmtracker.com`).
        return labels.contains {
            $0.hasPrefix("adserv") || $0.hasPrefix("adsnative") || String($0).containsASCII("tracker") || String($0).containsASCII("tracking")
        }
    }

    static let trackerFirstLabels: Set<String> = [
        "ad", "ads", "adserver", "adservice", "pixel", "pixels", "track", "tracking", "tracker", "beacon", "beacons", "stats", "analytics",
        "metrics", "idsync", "sync", "cm", "match", "count", "counter", "log", "logs", "collect", "telemetry",
    ]

    static let adHosts = [
        "doubleclick.net", "googlesyndication.com", "googleadservices.com", "google-analytics.com", "googletagmanager.com",
        "adnxs.com", "amazon-adsystem.com", "criteo.com", "criteo.net", "taboola.com", "outbrain.com", "scorecardresearch.com",
        "quantserve.com", "moatads.com", "pubmatic.com", "rubiconproject.com", "openx.net", "adsrvr.org", "mathtag.com",
        "bluekai.com", "krxd.net", "demdex.net", "yieldmo.com", "adform.net", "bidswitch.net", "rlcdn.com", "agkn.com", "adsymptotic.com", "everesttech.net",
        "casalemedia.com", "sharethrough.com",
        "teads.tv", "smartadserver.com", "advertising.com", "adtech.de", "revcontent.com", "mgid.com", "zemanta.com", "bat.bing.com",
        "facebook.net", "hotjar.com", "chartbeat.net", "newrelic.com", "nr-data.net", "ads-twitter.com", "revsci.net",
    ]
}
