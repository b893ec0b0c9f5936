import Foundation
import Glibc
import TrawlCore

/// What the SAX callbacks build while a document streams through; confined to one scan.
final class ScanState {
    enum Capture { case none, script, title }

    var summary: DocumentSummary
    var scripts: [ScriptBlock] = []
    var capture = Capture.none
    var text: [UInt8] = []
    var currentScript = ScriptBlock(index: 0)
    var scriptCount = 0
    var mediaParents: [Int] = []
    var pictureDepth = 0
    var sawTitle = false
    /// Open elements that mark a region (``MediaElement/Region``), outermost first.
    var landmarks: [Landmark] = []
    /// Top-level `<article>`s opened so far: the first is the page's own.
    var topLevelArticles = 0

    enum Landmark: Equatable {
        /// An `<article>`: the page's own (the first at top level), or another post.
        case article(own: Bool)
        case main, header
        /// `<nav>`, `<aside>`, `<footer>`, a comments/related `<section>`.
        case peripheral
        /// Any other `<section>`.
        case section
    }
    let maxScriptBytes: Int

    struct ScriptBlock {
        var index: Int
        var type: String?
        var id: String?
        var body: [UInt8] = []
    }

    init(url: String, charset: String, maxScriptBytes: Int) {
        summary = DocumentSummary(url: url, charset: charset)
        self.maxScriptBytes = maxScriptBytes
    }

    // MARK: elements

    func start(_ tag: Tag, _ attributes: Attributes) {
        switch tag {
        case .meta:
            guard let key = attributes["property"] ?? attributes["name"] ?? attributes["itemprop"],
                let value = attributes["content"] ?? attributes["value"]
            else { return }
            summary.metaTags.append(MetaTag(key: key.lowercased(), value: value))
        case .link:
            guard let href = attributes["href"], let rel = attributes["rel"] ?? attributes["itemprop"] else { return }
            summary.links.append(
                LinkTag(
                    rel: rel.lowercased().utf8.split(whereSeparator: { $0 <= 0x20 }).map { String(decoding: $0, as: UTF8.self) }, href: href,
                    type: attributes["type"]?.lowercased(), as: attributes["as"]?.lowercased(), title: attributes["title"]))
        case .base:
            if summary.baseHref == nil { summary.baseHref = attributes["href"] }
        case .title:
            if !sawTitle { capture = .title; text.removeAll(keepingCapacity: true) }
        case .script:
            currentScript = ScriptBlock(index: scriptCount, type: attributes["type"]?.lowercased(), id: attributes["id"])
            scriptCount += 1
            capture = .script
        case .video, .audio:
            // Lazy players name their files in data attributes until they scroll into view.
            let src = [attributes["src"], attributes["data-src"], attributes["data-mp4src"]].lazy.compactMap { $0 }.first { !$0.isEmpty }
            summary.mediaElements.append(
                MediaElement(
                    tag: tag == .video ? .video : .audio, src: src, poster: attributes["poster"],
                    type: attributes["type"], width: attributes.int("width"), height: attributes.int("height"), region: region))
            mediaParents.append(summary.mediaElements.count - 1)
            if let webm = attributes["data-webmsrc"], !webm.isEmpty {
                summary.mediaElements.append(
                    MediaElement(
                        tag: .source, src: webm, type: "video/webm", parent: summary.mediaElements.count - 1, region: region))
            }
        case .picture:
            pictureDepth += 1
        case .source:
            let srcset = (attributes["srcset"] ?? attributes["data-srcset"]).map(Self.parseSrcsetCandidates) ?? []
            summary.mediaElements.append(
                MediaElement(
                    tag: .source, src: attributes["src"] ?? attributes["data-src"], srcset: srcset.map(\.url), srcsetWidths: srcset.map(\.width),
                    type: attributes["type"], width: attributes.int("width"), height: attributes.int("height"),
                    parent: pictureDepth > 0 ? nil : mediaParents.last, inPicture: pictureDepth > 0, region: region))
        case .img:
            let lazy = attributes["data-src"] ?? attributes["data-original"] ?? attributes["data-lazy-src"] ?? attributes["data-gif"]
            var src = attributes["src"]
            // Lazy images keep a placeholder (often a data: pixel) in src.
            if let lazy, src == nil || src!.hasPrefix("data:") || src!.isEmpty { src = lazy }
            // The full file named beside a resized or still src.
            let original = [attributes["data-original"], attributes["data-gif"], attributes["data-src"], attributes["data-lazy-src"]]
                .lazy.compactMap { $0 }.first { !$0.isEmpty && !$0.hasPrefix("data:") && $0 != src }
            let srcset = (attributes["srcset"] ?? attributes["data-srcset"]).map(Self.parseSrcsetCandidates) ?? []
            summary.mediaElements.append(
                MediaElement(
                    tag: .img, src: src, srcset: srcset.map(\.url), srcsetWidths: srcset.map(\.width), original: original, type: nil,
                    width: attributes.int("width"), height: attributes.int("height"), alt: attributes["alt"], inPicture: pictureDepth > 0,
                    region: region, isHidden: attributes["aria-hidden"]?.lowercased() == "true"))
        case .embed:
            summary.mediaElements.append(
                MediaElement(
                    tag: .embed, src: attributes["src"], type: attributes["type"], width: attributes.int("width"), height: attributes.int("height"),
                    region: region))
        case .article:
            let topLevel = !landmarks.contains { if case .article = $0 { true } else { false } }
            landmarks.append(.article(own: topLevel && topLevelArticles == 0))
            if topLevel { topLevelArticles += 1 }
        case .main:
            landmarks.append(.main)
        case .header:
            landmarks.append(.header)
        case .nav, .aside, .footer:
            landmarks.append(.peripheral)
        case .section, .div:
            // A container marked only by its class or id (`related-posts`, `sidebar`,
            // `comments`, `promo`, `ad-slot`) holds other posts and page furniture. Read from
            // libxml2's bytes: every `<div>` of a page passes here.
            let peripheral = attributes.withValue("id", Self.isPeripheral) || attributes.withValue("class", Self.isPeripheral)
            landmarks.append(peripheral ? .peripheral : .section)
        }
    }

    /// Words in a section's id or class that mark it as not the page's own content (searched as
    /// bytes: Foundation's `contains` goes through NSString, which a profile found on this path).
    static let peripheralNames: [StaticString] = [
        "comment", "related", "recommend", "sidebar", "promo", "sponsor", "advert", "more-from", "trending", "popular", "newsletter",
        "reply", "replies", "suggest",
    ]

    /// ``peripheralNames`` by their first letter, `a` to `z` (each name starts with a lower-case letter).
    private static let peripheralNamesByLetter: [[StaticString]] = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { letter in
        peripheralNames.filter { $0.utf8Start[0] == letter }
    }

    /// Whether a container's id or class list (any case) marks it as not the page's item: it
    /// holds one of ``peripheralNames``, or an ad slot's token (`ad`, `ads`, `ad-slot`,
    /// `ads_top`: whole tokens, never `head-…`, `thread-…` or `download-…`). One pass over the
    /// bytes, trying at each letter only the names that start with it; no copies. (This runs for
    /// every `<div>` of every page.)
    static func isPeripheral(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = value.count
        guard n > 0 else { return false }
        @inline(__always) func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        let byLetter = peripheralNamesByLetter
        for i in 0..<n {
            let letter = lower(value[i]) &- UInt8(ascii: "a")
            guard letter < 26 else { continue }
            for name in byLetter[Int(letter)] where i + name.utf8CodeUnitCount <= n {
                let word = name.utf8Start
                let m = name.utf8CodeUnitCount
                var k = 1
                while k < m, lower(value[i + k]) == word[k] { k += 1 }
                if k == m { return true }
            }
        }
        // Whole tokens, separated by ASCII white space.
        var start = 0
        while start < n {
            while start < n, value[start] <= 0x20 { start += 1 }
            var end = start
            while end < n, value[end] > 0x20 { end += 1 }
            let length = end - start
            if length >= 2, lower(value[start]) == UInt8(ascii: "a"), lower(value[start + 1]) == UInt8(ascii: "d") {
                var next = start + 2
                if next < end, lower(value[next]) == UInt8(ascii: "s") { next += 1 }
                if next == end || value[next] == UInt8(ascii: "-") || value[next] == UInt8(ascii: "_") { return true }
            }
            start = end
        }
        return false
    }

    /// The region an element opened now sits in.
    var region: MediaElement.Region {
        var inArticle: Bool?
        var inMain = false
        var inHeader = false
        for landmark in landmarks {
            switch landmark {
            case .peripheral: return .peripheral
            case .article(let own): inArticle = inArticle == nil ? own : false  // a nested article is a reply or an embed
            case .main: inMain = true
            case .header: inHeader = true
            case .section: continue
            }
        }
        if let inArticle { return inArticle ? .mainContent : .otherPost }
        if inMain { return .mainContent }
        // The page's own header (not an article's) holds its logo and navigation.
        return inHeader ? .peripheral : .unmarked
    }

    /// Closes the innermost open landmark that `tag` opened.
    func closeLandmark(_ tag: Tag) {
        guard
            let index = landmarks.lastIndex(where: { landmark in
                switch (tag, landmark) {
                case (.article, .article): true
                case (.main, .main), (.header, .header): true
                case (.nav, .peripheral), (.aside, .peripheral), (.footer, .peripheral): true
                case (.section, .section), (.section, .peripheral), (.div, .section), (.div, .peripheral): true
                default: false
                }
            })
        else { return }
        landmarks.remove(at: index)
    }

    func end(_ tag: Tag) {
        switch tag {
        case .script:
            guard capture == .script else { return }
            capture = .none
            if ScriptMarkup.mayHoldMarkup(type: currentScript.type) {
                summary.mediaElements += currentScript.body.withUnsafeBufferPointer(ScriptMarkup.elements)
            }
            scripts.append(currentScript)
            currentScript = ScriptBlock(index: scriptCount)
        case .title:
            guard capture == .title else { return }
            capture = .none
            sawTitle = true
            let title = String(decoding: text, as: UTF8.self).trimmedWhitespace
            if !title.isEmpty { summary.title = title }
        case .video, .audio:
            _ = mediaParents.popLast()
        case .picture:
            pictureDepth = max(0, pictureDepth - 1)
        case .article, .main, .header, .nav, .aside, .footer, .section, .div:
            closeLandmark(tag)
        default:
            break
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch capture {
        case .none: return
        case .script:
            if currentScript.body.count + bytes.count <= maxScriptBytes { currentScript.body.append(contentsOf: bytes) }
        case .title:
            if text.count < 4096 { text.append(contentsOf: bytes) }
        }
    }

    /// `srcset` candidates ordered by their descriptor, largest last.
    static func parseSrcset(_ value: String) -> [String] {
        parseSrcsetCandidates(value).map(\.url)
    }

    /// `srcset` candidates ordered by their descriptor, largest last, each with the width its
    /// `w` descriptor declares.
    static func parseSrcsetCandidates(_ value: String) -> [(url: String, width: Int?)] {
        // UTF-8 bytes, split on ASCII commas and spaces (the only separators srcset has).
        var candidates: [(url: String, weight: Double, width: Int?)] = []
        for part in value.utf8.split(separator: UInt8(ascii: ",")) {
            let fields = part.split(whereSeparator: { $0 <= 0x20 })
            guard let url = fields.first else { continue }
            var weight = 1.0
            var width: Int?
            if fields.count > 1, let d = Double(String(decoding: fields[1].dropLast(), as: UTF8.self)) {
                weight = d
                if fields[1].last.map({ $0 | 0x20 }) == UInt8(ascii: "w") { width = Int(exactly: d.rounded()) }
            }
            candidates.append((String(decoding: url, as: UTF8.self), weight, width))
        }
        return candidates.sorted { $0.weight < $1.weight }.map { ($0.url, $0.width) }
    }
}

/// The elements the scanner reads; every other element costs one comparison.
enum Tag {
    case meta, link, base, title, script, video, audio, source, img, picture, embed
    /// Landmarks: where on the page a media element sits.
    case article, main, header, nav, aside, footer, section, div

    /// Matches a NUL-terminated element name (libxml2 reports them lower-cased).
    init?(_ name: UnsafePointer<UInt8>) {
        // The longest name read is 7 bytes: a longer one is none of these.
        var length = 0
        while length <= 7, name[length] != 0 { length += 1 }
        self.init(named: UnsafeBufferPointer(start: name, count: length), 0..<length)
    }
}

extension Tag {
    /// The element named by `bytes[range]` as written (any case).
    init?(named bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        func named(_ name: StaticString) -> Bool { StartTagReader.name(bytes, range, is: name) }
        guard range.count >= 3, range.count <= 7 else { return nil }
        switch bytes[range.lowerBound] | 0x20 {
        case UInt8(ascii: "m"):
            if named("meta") { self = .meta } else if named("main") { self = .main } else { return nil }
        case UInt8(ascii: "l"): if named("link") { self = .link } else { return nil }
        case UInt8(ascii: "b"): if named("base") { self = .base } else { return nil }
        case UInt8(ascii: "t"): if named("title") { self = .title } else { return nil }
        case UInt8(ascii: "s"):
            if named("script") { self = .script } else if named("source") { self = .source } else if named("section") { self = .section } else { return nil }
        case UInt8(ascii: "v"): if named("video") { self = .video } else { return nil }
        case UInt8(ascii: "a"):
            if named("audio") { self = .audio } else if named("article") { self = .article } else if named("aside") { self = .aside } else { return nil }
        case UInt8(ascii: "h"): if named("header") { self = .header } else { return nil }
        case UInt8(ascii: "n"): if named("nav") { self = .nav } else { return nil }
        case UInt8(ascii: "f"): if named("footer") { self = .footer } else { return nil }
        case UInt8(ascii: "i"): if named("img") { self = .img } else { return nil }
        case UInt8(ascii: "p"): if named("picture") { self = .picture } else { return nil }
        case UInt8(ascii: "e"): if named("embed") { self = .embed } else { return nil }
        case UInt8(ascii: "d"): if named("div") { self = .div } else { return nil }
        default: return nil
        }
    }

    /// The attributes ``ScanState/start(_:_:)`` reads of this element: the thinned feed
    /// passes libxml2 only these (keep the two in step).
    var readAttributes: [StaticString] {
        switch self {
        case .meta: ["property", "name", "itemprop", "content", "value"]
        case .link: ["href", "rel", "itemprop", "type", "as", "title"]
        case .base: ["href"]
        case .title, .picture, .article, .main, .header, .nav, .aside, .footer: []
        case .section, .div: ["id", "class"]
        case .script: ["type", "id"]
        case .video, .audio: ["src", "data-src", "data-mp4src", "data-webmsrc", "poster", "type", "width", "height"]
        case .source: ["srcset", "data-srcset", "src", "data-src", "type", "width", "height"]
        case .img: ["data-src", "data-original", "data-lazy-src", "data-gif", "src", "srcset", "data-srcset", "width", "height", "alt", "aria-hidden"]
        case .embed: ["src", "type", "width", "height"]
        }
    }
}

/// A SAX attribute array (`name, value, name, value, …, NULL`), read without copying until a
/// value is asked for. Only valid during the callback that received it.
struct Attributes {
    let raw: UnsafeMutablePointer<UnsafePointer<UInt8>?>?

    /// The attribute's value pointer: `nil` when the attribute is missing, `.some(nil)` when
    /// libxml2 gave it no value.
    private func value(_ name: StaticString) -> UnsafePointer<UInt8>?? {
        guard let raw else { return nil }
        let count = name.utf8CodeUnitCount
        let wanted = name.utf8Start
        var i = 0
        while let attribute = raw[i] {
            var match = true
            for k in 0..<count where attribute[k] != wanted[k] { match = false; break }
            if match && attribute[count] == 0 { return .some(raw[i + 1]) }
            i += 2
        }
        return nil
    }

    subscript(name: StaticString) -> String? {
        guard let found = value(name) else { return nil }
        return found.map { String(cString: $0) } ?? ""
    }

    /// `body` of the value's bytes (borrowed from libxml2 for the callback), `false` when the
    /// attribute is missing.
    func withValue(_ name: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        guard let found = value(name), let bytes = found else { return false }
        return body(UnsafeBufferPointer(start: bytes, count: strlen(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self))))
    }

    func int(_ name: StaticString) -> Int? {
        self[name].flatMap { Int($0.trimmedWhitespace.prefix { $0.isNumber }) }
    }
}

/// Media elements in markup a script builds as a string (`el.innerHTML = '<img src="…">'`,
/// `html += "<video src=\"…\">"`): read from the script's text, each as written.
enum ScriptMarkup {
    /// Whether a `src` read from script text is code that builds the URL rather than the URL.
    static func isAssembled(_ src: String) -> Bool {
        src.contains("'") || src.contains("\"") || src.contains("${") || src.contains(" + ") || src.contains("'+") || src.contains("+'")
            || src.contains("`")
    }

    /// Scripts that run (not JSON, not templates of another type).
    static func mayHoldMarkup(type: String?) -> Bool {
        guard let type, !type.isEmpty else { return true }
        return type.containsASCII("javascript") || type == "module" || type.containsASCII("ecmascript")
    }

    /// `<img>`, `<video>` and `<source>` tags in `text` with a `src` (or lazy `data-src`), as
    /// images and videos of region ``MediaElement/Region/script``.
    static func elements(_ text: UnsafeBufferPointer<UInt8>) -> [MediaElement] {
        guard let base = text.baseAddress else { return [] }
        var found: [MediaElement] = []
        var i = 0
        let n = text.count
        while i < n, found.count < 256 {
            guard let hit = memchr(base + i, Int32(UInt8(ascii: "<")), n - i) else { break }
            let open = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            i = open + 1
            let tag: MediaElement.Tag
            if word(text, at: i, "img") {
                tag = .img; i += 3
            } else if word(text, at: i, "video") {
                tag = .video; i += 5
            } else if word(text, at: i, "source") {
                tag = .video; i += 6
            } else {
                continue
            }
            guard i < n, text[i] <= 0x20 || text[i] == UInt8(ascii: "\\") else { continue }
            // The tag's text: to its `>`, at most 2 KiB.
            var end = i
            while end < n, end - i < 2048, text[end] != UInt8(ascii: ">") { end += 1 }
            let attributes = UnsafeBufferPointer(rebasing: text[i..<end])
            let src = value(attributes, "data-src") ?? value(attributes, "data-original") ?? value(attributes, "src")
            // A URL the script puts together (`'…/g/' + name + '.gif'`, `${id}`) is not written
            // in its text: what the scan would read is a piece of code.
            guard let src, !src.isEmpty, !src.hasPrefix("data:"), !Self.isAssembled(src) else { continue }
            found.append(
                MediaElement(
                    tag: tag, src: src, type: value(attributes, "type"),
                    width: value(attributes, "width").flatMap { Int($0.prefix { $0.isNumber }) },
                    height: value(attributes, "height").flatMap { Int($0.prefix { $0.isNumber }) },
                    region: .script))
            i = end
        }
        return found
    }

    private static func word(_ text: UnsafeBufferPointer<UInt8>, at i: Int, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard i + count <= text.count else { return false }
        for k in 0..<count where text[i + k] | 0x20 != name.utf8Start[k] { return false }
        return true
    }

    /// The value of attribute `name` (`name="v"`, `name='v'`, `name=\"v\"`, `name=v`), JSON
    /// and JavaScript escapes of `/` and `&` undone.
    static func value(_ tag: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> String? {
        let count = name.utf8CodeUnitCount
        var i = 0
        while i + count < tag.count {
            // The name must start the attribute: after a blank, a quote or an escape.
            if word(tag, at: i, name),
                i == 0 || tag[i - 1] <= 0x20 || tag[i - 1] == UInt8(ascii: "\\") || tag[i - 1] == UInt8(ascii: "\"") || tag[i - 1] == UInt8(ascii: "'"),
                tag[i + count] == UInt8(ascii: "=")
            {
                var j = i + count + 1
                var quote: UInt8?
                if j < tag.count, tag[j] == UInt8(ascii: "\\") { j += 1 }
                if j < tag.count, tag[j] == UInt8(ascii: "\"") || tag[j] == UInt8(ascii: "'") { quote = tag[j]; j += 1 }
                var k = j
                while k < tag.count {
                    let c = tag[k]
                    if let quote, c == quote { break }
                    if quote == nil, c <= 0x20 { break }
                    if c == UInt8(ascii: "\\"), k + 1 < tag.count, tag[k + 1] == UInt8(ascii: "\"") || tag[k + 1] == UInt8(ascii: "'") { break }
                    k += 1
                }
                let raw = String(decoding: UnsafeBufferPointer(rebasing: tag[j..<k]), as: UTF8.self)
                return raw.replacingOccurrences(of: "\\/", with: "/").replacingOccurrences(of: "\\u0026", with: "&")
                    .replacingOccurrences(of: "&amp;", with: "&")
            }
            i += 1
        }
        return nil
    }
}
