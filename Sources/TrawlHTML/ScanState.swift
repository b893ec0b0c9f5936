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
                  let value = attributes["content"] ?? attributes["value"] else { return }
            summary.metaTags.append(MetaTag(key: key.lowercased(), value: value))
        case .link:
            guard let href = attributes["href"], let rel = attributes["rel"] ?? attributes["itemprop"] else { return }
            summary.links.append(LinkTag(
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
            summary.mediaElements.append(MediaElement(
                tag: tag == .video ? .video : .audio, src: attributes["src"], poster: attributes["poster"],
                type: attributes["type"], width: attributes.int("width"), height: attributes.int("height")))
            mediaParents.append(summary.mediaElements.count - 1)
        case .picture:
            pictureDepth += 1
        case .source:
            let srcset = attributes["srcset"] ?? attributes["data-srcset"]
            summary.mediaElements.append(MediaElement(
                tag: .source, src: attributes["src"] ?? attributes["data-src"], srcset: srcset.map(Self.parseSrcset) ?? [],
                type: attributes["type"], width: attributes.int("width"), height: attributes.int("height"),
                parent: pictureDepth > 0 ? nil : mediaParents.last, inPicture: pictureDepth > 0))
        case .img:
            let lazy = attributes["data-src"] ?? attributes["data-original"] ?? attributes["data-lazy-src"] ?? attributes["data-gif"]
            var src = attributes["src"]
            // Lazy images keep a placeholder (often a data: pixel) in src.
            if let lazy, src == nil || src!.hasPrefix("data:") || src!.isEmpty { src = lazy }
            let srcset = attributes["srcset"] ?? attributes["data-srcset"]
            summary.mediaElements.append(MediaElement(
                tag: .img, src: src, srcset: srcset.map(Self.parseSrcset) ?? [], type: nil,
                width: attributes.int("width"), height: attributes.int("height"), alt: attributes["alt"], inPicture: pictureDepth > 0))
        case .embed:
            summary.mediaElements.append(MediaElement(
                tag: .embed, src: attributes["src"], type: attributes["type"], width: attributes.int("width"), height: attributes.int("height")))
        }
    }

    func end(_ tag: Tag) {
        switch tag {
        case .script:
            guard capture == .script else { return }
            capture = .none
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
        // UTF-8 bytes, split on ASCII commas and spaces (the only separators srcset has).
        var candidates: [(url: String, weight: Double)] = []
        for part in value.utf8.split(separator: UInt8(ascii: ",")) {
            let fields = part.split(whereSeparator: { $0 <= 0x20 })
            guard let url = fields.first else { continue }
            var weight = 1.0
            if fields.count > 1, let d = Double(String(decoding: fields[1].dropLast(), as: UTF8.self)) { weight = d }
            candidates.append((String(decoding: url, as: UTF8.self), weight))
        }
        return candidates.sorted { $0.weight < $1.weight }.map(\.url)
    }
}

/// The elements the scanner reads; every other element costs one comparison.
enum Tag {
    case meta, link, base, title, script, video, audio, source, img, picture, embed

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
        case UInt8(ascii: "m"): if named("meta") { self = .meta } else { return nil }
        case UInt8(ascii: "l"): if named("link") { self = .link } else { return nil }
        case UInt8(ascii: "b"): if named("base") { self = .base } else { return nil }
        case UInt8(ascii: "t"): if named("title") { self = .title } else { return nil }
        case UInt8(ascii: "s"):
            if named("script") { self = .script } else if named("source") { self = .source } else { return nil }
        case UInt8(ascii: "v"): if named("video") { self = .video } else { return nil }
        case UInt8(ascii: "a"): if named("audio") { self = .audio } else { return nil }
        case UInt8(ascii: "i"): if named("img") { self = .img } else { return nil }
        case UInt8(ascii: "p"): if named("picture") { self = .picture } else { return nil }
        case UInt8(ascii: "e"): if named("embed") { self = .embed } else { return nil }
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
        case .title, .picture: []
        case .script: ["type", "id"]
        case .video, .audio: ["src", "poster", "type", "width", "height"]
        case .source: ["srcset", "data-srcset", "src", "data-src", "type", "width", "height"]
        case .img: ["data-src", "data-original", "data-lazy-src", "data-gif", "src", "srcset", "data-srcset", "width", "height", "alt"]
        case .embed: ["src", "type", "width", "height"]
        }
    }
}

/// A SAX attribute array (`name, value, name, value, …, NULL`), read without copying until a
/// value is asked for. Only valid during the callback that received it.
struct Attributes {
    let raw: UnsafeMutablePointer<UnsafePointer<UInt8>?>?

    subscript(name: StaticString) -> String? {
        guard let raw else { return nil }
        let count = name.utf8CodeUnitCount
        let wanted = name.utf8Start
        var i = 0
        while let attribute = raw[i] {
            var match = true
            for k in 0..<count where attribute[k] != wanted[k] { match = false; break }
            if match && attribute[count] == 0 {
                guard let value = raw[i + 1] else { return "" }
                return String(cString: value)
            }
            i += 2
        }
        return nil
    }

    func int(_ name: StaticString) -> Int? {
        self[name].flatMap { Int($0.trimmedWhitespace.prefix { $0.isNumber }) }
    }
}
