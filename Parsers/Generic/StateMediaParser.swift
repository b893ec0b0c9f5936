import Foundation
import Glibc
package import TrawlCore

/// Media in a JSON state object: `window.__STATE__ = {…}`, `var postData = …`, a rehydration
/// blob, `__NEXT_DATA__`, `<script type="application/json">`, or a JSON response.
///
/// In the generic stage (``Mode/pageItem``) it returns only the page's own item: the object
/// whose identifier (`id`, `slug`, `hash`, …) is a token of the page URL — a state object holds
/// related posts, comments and promotions beside it. As a fallback (``Mode/everyItem``), when
/// nothing structured answered, it returns every item it finds.
///
/// Each item is one media: every animated URL under it (its gif, mp4, webm, `.gifv`) is a
/// rendition, with the width and height written beside that URL, and the primary follows the
/// site rule (``SiteMedia``). An array of objects holds several items (a gallery), unless it
/// lists formats of one (`sources`, `variants`, objects with a `type` or `bitrate`).
package struct StateMediaParser: Parser {
    package enum Mode: Sendable { case pageItem, everyItem }

    package let name: String
    package let stage: ParserStage
    package let mode: Mode

    package init(_ mode: Mode = .pageItem) {
        self.mode = mode
        name = mode == .pageItem ? "state-item" : "state-groups"
        stage = mode == .pageItem ? .generic : .fallback
    }

    package func canParse(_ info: PayloadInfo) -> Bool {
        if case .embedded(let locator) = info.origin { return locator.kind != .linkedData }
        return info.isJSON && !(info.url.path.contains("oembed") || info.contentType == "application/json+oembed")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        var tokens = Set<String>()
        if mode == .pageItem {
            tokens = StateItems.identifiers(of: payload.info.url)
            if payload.info.requestURL != payload.info.url { tokens.formUnion(StateItems.identifiers(of: payload.info.requestURL)) }
            // Reading a state object costs more than the rest of a page's parsers: only one
            // that holds an identifier of the page and a media URL is read.
            let candidate = payload.body.withUnsafeBytes { raw -> Bool in
                let bytes = raw.bindMemory(to: UInt8.self)
                return tokens.contains { StateItems.occurs($0, in: bytes) } && !RegexFallbackParser.scan(bytes, limit: 1).isEmpty
            }
            guard candidate else { return ResultSet() }
        }
        let json: JSONValue
        do { json = try JSONValue(parsing: payload.body) } catch { return ResultSet() }
        let base = payload.info.url.absoluteString
        let items: [JSONValue]
        switch mode {
        case .pageItem:
            items = StateItems.items(namedBy: tokens, in: json)
        case .everyItem:
            items = [json]
        }
        var collection = MediaCollection()
        for item in items {
            for files in StateItems.groups(in: item, base: base) {
                if let media = files.media(parser: name, payload: payload) { collection.insert(media) }
            }
        }
        return ResultSet(media: collection.media)
    }
}

/// How ``StateMediaParser`` reads a state object.
enum StateItems {
    /// Keys whose value names an item.
    static let identityKeys: Set<String> = [
        "id", "_id", "slug", "key", "hash", "shortcode", "uuid", "postid", "post_id", "gid", "gif_id", "media_id", "code", "uid",
        // Gfycat-style items (`gfyItem`): the id in lower case, the name as its URLs write it.
        "gfyid", "gfyname",
    ]

    /// Keys under which a state keeps other items than the one it holds: never part of it.
    static let foreignKeys: Set<String> = [
        "related", "recommended", "recommendations", "suggested", "suggestions", "similar", "more", "morefrom", "next", "prev",
        "previous", "comments", "replies", "trending", "popular", "sidebar", "promo", "promos", "promoted", "ads", "ad",
        "user", "author", "owner", "creator", "profile", "avatar", "channel", "publisher", "sponsor", "tags", "quoted_status",
        "quoted_status_result", "quotedpost", "quoted", "stickers", "stickersonitem", "emoji", "emojis", "emoticons", "reactions",
        "badges", "icons",
    ]

    /// Keys of an array that lists formats of one media, not several items.
    static let formatListKeys: Set<String> = ["sources", "variants", "formats", "renditions", "files", "encodings", "media_formats", "versions"]

    /// Tokens of a URL that can be an item's identifier: path segments and their parts split on
    /// `-`/`_` that hold a digit or mix cases (`12XMGIWtrHBl5e`, `abY5Mm9`, `post-1234`), and the
    /// values of the query.
    static func identifiers(of url: URL) -> Set<String> {
        // Read as UTF-8 bytes: this runs for every JSON payload of every page.
        var tokens = Set<String>()
        func consider(_ token: Substring.UTF8View.SubSequence) {
            guard token.count >= 4, token.count <= 80 else { return }
            var digit = false, upper = false, lower = false
            for c in token {
                if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                    digit = true
                } else if c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") {
                    upper = true
                } else if c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z") {
                    lower = true
                }
            }
            if digit || (upper && lower && token.count >= 5) { tokens.insert(String(Substring(token))) }
        }
        let path = Substring(url.path)
        for segment in path.utf8.split(separator: UInt8(ascii: "/")) {
            let stem = segment.split(separator: UInt8(ascii: "."), maxSplits: 1).first ?? segment
            consider(stem)
            if stem.contains(UInt8(ascii: "-")) || stem.contains(UInt8(ascii: "_")) {
                for part in stem.split(whereSeparator: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) { consider(part) }
                // A slug is an identifier too.
                if stem.count >= 8 { tokens.insert(String(Substring(stem))) }
            }
        }
        if let query = url.query {
            for pair in Substring(query).utf8.split(separator: UInt8(ascii: "&")) {
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) { consider(pair[pair.index(after: equals)...]) }
            }
        }
        return tokens
    }

    /// Whether `token` occurs in `bytes`, as a byte search.
    static func occurs(_ token: String, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var token = token
        return token.withUTF8 { word in
            guard let first = word.first, word.count <= bytes.count else { return false }
            var i = 0
            let last = bytes.count - word.count
            while i <= last {
                guard let hit = memchr(base + i, Int32(first), last - i + 1) else { return false }
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + at, word.baseAddress!, word.count) == 0 { return true }
                i = at + 1
            }
            return false
        }
    }

    /// Objects whose identifier is one of `tokens`, outermost first; foreign keys are not searched.
    static func items(namedBy tokens: Set<String>, in root: JSONValue) -> [JSONValue] {
        var found: [JSONValue] = []
        func visit(_ value: JSONValue, depth: Int) {
            guard depth < 64 else { return }
            switch value {
            case .object(let object):
                let named = object.contains { key, value in
                    guard identityKeys.contains(key.lowercased()) else { return false }
                    if let string = value.string { return tokens.contains(string) }
                    if let number = value.int { return tokens.contains(String(number)) }
                    return false
                }
                if named { found.append(value); return }
                for (key, child) in object where !foreignKeys.contains(key.lowercased()) { visit(child, depth: depth + 1) }
            case .array(let array):
                for child in array { visit(child, depth: depth + 1) }
            default:
                return
            }
        }
        visit(root, depth: 0)
        return found
    }

    /// The media of one item: each a ``SiteMedia`` of the files under it.
    static func groups(in item: JSONValue, base: String) -> [SiteMedia] {
        var groups: [SiteMedia] = []
        var own = SiteMedia()
        own.title = title(of: item)
        collect(item, name: nil, holder: item.object, into: &own, groups: &groups, base: base, depth: 0)
        return own.files.isEmpty ? groups : [own] + groups
    }

    static func title(of value: JSONValue) -> String? {
        for key in ["title", "caption", "name", "headline"] {
            if let title = value[key]?.string, !title.isEmpty, title.count < 300 { return title }
        }
        return nil
    }

    private static func collect(
        _ value: JSONValue, name: String?, holder: [String: JSONValue]?, into files: inout SiteMedia, groups: inout [SiteMedia],
        base: String, depth: Int
    ) {
        guard depth < 32 else { return }
        switch value {
        case .string(let string):
            add(string, name: name, holder: holder, to: &files, base: base)
        case .object(let object):
            for (key, child) in object.sorted(by: { $0.key < $1.key }) where !foreignKeys.contains(key.lowercased()) {
                // A URL under `url`/`src` is named by its object (`original: {url}`).
                let childName = child.string != nil && ["url", "src", "href", "link"].contains(key.lowercased()) ? (name ?? key) : key
                collect(child, name: childName, holder: object, into: &files, groups: &groups, base: base, depth: depth + 1)
            }
        case .array(let array):
            let objects = array.filter { $0.object != nil }
            let isFormatList =
                formatListKeys.contains((name ?? "").lowercased())
                || objects.contains { $0["type"] != nil || $0["mimeType"] != nil || $0["content_type"] != nil || $0["bitrate"] != nil }
            for element in array {
                if element.object != nil, !isFormatList {
                    var item = SiteMedia()
                    item.title = title(of: element) ?? files.title
                    collect(element, name: name, holder: element.object, into: &item, groups: &groups, base: base, depth: depth + 1)
                    if !item.files.isEmpty { groups.append(item) }
                } else {
                    collect(element, name: name, holder: element.object ?? holder, into: &files, groups: &groups, base: base, depth: depth + 1)
                }
            }
        default:
            return
        }
    }

    /// Keys that name a still of the item.
    static let stillKeys = ["poster", "thumbnail", "thumb", "still", "preview", "cover", "image"]

    private static func add(_ string: String, name: String?, holder: [String: JSONValue]?, to files: inout SiteMedia, base: String) {
        guard string.count < 4096, string.hasPrefix("http://") || string.hasPrefix("https://") || string.hasPrefix("//") || string.hasPrefix("/"),
            !string.utf8.contains(0x20), let url = URLResolver.resolve(string, base: base)
        else { return }
        let lowered = name?.lowercased() ?? ""
        let width = dimension(holder?["width"] ?? holder?["w"]), height = dimension(holder?["height"] ?? holder?["h"])
        var hints = MediaHints(url: url, width: width, height: height)
        if hints.kind == nil { hints.mimeType = declaredType(of: url, key: lowered, holder: holder) }
        if hints.isAnimatedMedia, !Decorations.isDecoration(url, width: width, height: height) {
            files.add(url, name: name, mimeType: hints.mimeType, width: width, height: height, byteSize: dimension(holder?["size"]))
        } else if hints.kind == .still, stillKeys.contains(where: { lowered.contains($0) }) {
            files.addStill(url, width: width, height: height)
        }
    }

    /// The type of an extensionless URL (`…/video/tos/7301/?a=1`), when its key or the fields
    /// beside it say what it is: a format's own key (`mp4`, `gif`), a player's address
    /// (`playAddr`, `downloadAddr`, `video_url`), a sibling `mime_type`/`content_type`/`format`, a
    /// `mime_type=video_mp4` in its query, or a `duration` beside a size.
    static func declaredType(of url: String, key: String, holder: [String: JSONValue]?) -> String? {
        switch key {
        case "mp4": return "video/mp4"
        case "webm": return "video/webm"
        case "gif": return "image/gif"
        default: break
        }
        // One pass over the holder's keys, compared without copies: this runs for every
        // extensionless URL of a state object, most of them links.
        var declaredOther = false
        for (key, value) in holder ?? [:] {
            // A caption track says so by a field of its own (TikTok's `subtitleType`).
            if trackFields.contains(where: { Self.equalsLowercased(key, $0) }) {
                declaredOther = true
                continue
            }
            let isType = typeFields.contains { Self.equalsLowercased(key, $0) }
            // `format`, and the formats of one kind of file (`captionFormat`).
            let isFormat = Self.equalsLowercased(key.utf8.suffix(6), "format")
            guard isType || isFormat, let value = value.string?.lowercased() else { continue }
            if isType {
                if value.hasPrefix("video/") || value == "image/gif" { return value }
            } else {
                if value.contains("mp4") { return "video/mp4" }
                if value.contains("webm") { return "video/webm" }
            }
            if Self.namesNoVideo(value) { declaredOther = true }
        }
        // A field beside the URL that names another format wins over the URL's query: a
        // subtitle track (`"Format": "webvtt"`) is served from the same path as its video, with
        // the video's `mime_type=video_mp4` in its address.
        if declaredOther { return nil }
        if url.containsASCII("mime_type=video_mp4", ignoringCase: true) || url.containsASCII("mime_type=video%2fmp4", ignoringCase: true) {
            return "video/mp4"
        }
        let isAddress = playerAddressKeys.contains { key.contains($0) }
        let hasDuration = holder?["duration"] != nil || holder?["duration_ms"] != nil || holder?["durationms"] != nil
        if isAddress || (hasDuration && holder?["width"] != nil && (key.contains("url") || key.contains("src"))) { return "video/x-unknown" }
        return nil
    }

    /// Whether `key` is `lowercased` in any case, compared without copies.
    static func equalsLowercased(_ key: String, _ lowercased: String) -> Bool {
        equalsLowercased(key.utf8, lowercased)
    }

    /// Whether the bytes `key` spell `lowercased` in any case.
    static func equalsLowercased<Bytes: Sequence<UInt8>>(_ key: Bytes, _ lowercased: String) -> Bool {
        key.elementsEqual(lowercased.utf8) { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }

    /// Whether a declared format or type (lowercased) is one no video is served as: subtitles,
    /// text and data, sound, a still image. (A playlist's `application/…` types are not.)
    static func namesNoVideo(_ value: String) -> Bool {
        if ["webvtt", "vtt", "srt", "ttml", "dfxp", "sami", "json", "xml"].contains(value) { return true }
        if ["application/json", "application/xml", "application/ttml+xml", "application/x-subrip"].contains(value) { return true }
        return value.hasPrefix("text/") || value.hasPrefix("audio/") || (value.hasPrefix("image/") && value != "image/gif")
    }

    /// Keys (any case) that only a caption or subtitle track has.
    static let trackFields = ["subtitletype", "subtitle_type", "captionformat", "caption_format"]

    /// Keys (any case) whose value is a media type.
    static let typeFields = ["mime_type", "mimetype", "content_type", "contenttype", "encodingformat"]

    /// Keys under which players keep the address of the video they play.
    static let playerAddressKeys = [
        "playaddr", "play_addr", "downloadaddr", "download_addr", "playurl", "play_url", "videourl", "video_url", "playback_url", "playbackurl",
    ]

    static func dimension(_ value: JSONValue?) -> Int? {
        if let number = value?.number, number > 0 { return number }
        return nil
    }
}
