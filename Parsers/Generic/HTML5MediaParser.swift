import TrawlCore

/// `<video>` with its `<source>`s (one media, the sources its renditions, the poster its
/// still), animated `<img>` and `<picture>` sources. Tracking pixels and spinners are skipped,
/// and so are `blob:` sources, which only the page's own player can read.
public struct HTML5MediaParser: Parser {
    public let name = "html5-media"
    public let stage = ParserStage.generic

    public init() {}

    public func canParse(_ info: PayloadInfo) -> Bool { info.isHTMLDocument }

    public func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        let elements = document.mediaElements
        var collection = MediaCollection()
        for (index, element) in elements.enumerated() {
            switch element.tag {
            case .video:
                var files: [MediaHints] = []
                if let src = element.src.flatMap(document.resolve) { files.append(MediaHints(url: src, mimeType: element.type)) }
                for source in elements where source.tag == .source && source.parent == index {
                    if let src = source.src.flatMap(document.resolve) { files.append(MediaHints(url: src, mimeType: source.type)) }
                }
                let playable = files.filter(\.isAnimatedMedia)
                guard let primary = Self.best(playable) else { continue }
                var media = primary.media(
                    parser: name, payload: payload, title: document.firstMeta("og:title") ?? document.title,
                    still: element.poster.flatMap(document.resolve))
                media.width = media.width ?? element.width
                media.height = media.height ?? element.height
                media.renditions = playable.filter { $0.url != primary.url }.map { $0.rendition() }
                collection.insert(media)
            case .source:
                continue  // read with their <video>, or with their <picture>'s <img>
            case .img:
                // A <picture>'s sources come just before its <img>: they are its renditions.
                var sources: [String] = []
                if element.inPicture {
                    var k = index - 1
                    while k >= 0, elements[k].tag == .source, elements[k].inPicture {
                        sources += elements[k].srcset.reversed() + [elements[k].src].compactMap { $0 }
                        k -= 1
                    }
                }
                var references: [String] = element.src.map { [$0] } ?? []
                references += element.srcset.reversed()
                references += sources
                let candidates: [MediaHints] = references.compactMap { reference in
                    guard Self.mayNameAnimatedImage(reference), let url = document.resolve(reference) else { return nil }
                    let hints = MediaHints(url: url, width: element.width, height: element.height)
                    return hints.isAnimatedMedia && Self.imageKinds.contains(hints.kind ?? .unknown) ? hints : nil
                }
                guard let primary = candidates.first, !Decorations.isDecoration(primary.url, width: element.width, height: element.height),
                      primary.kind != .webp || KnownMediaHosts.servesAnimatedWebP(primary.url) else { continue }
                var media = primary.media(parser: name, payload: payload, title: element.alt.flatMap { $0.isEmpty ? nil : $0 })
                // Other sizes of the same image: their dimensions are not the <img>'s.
                media.renditions = candidates.dropFirst().filter { $0.url != primary.url }.map {
                    Rendition(url: $0.url, kind: $0.kind ?? .unknown)
                }
                collection.insert(media)
            case .embed:
                guard let url = element.src.flatMap(document.resolve) else { continue }
                let hints = MediaHints(url: url, mimeType: element.type, width: element.width, height: element.height)
                if hints.isAnimatedMedia { collection.insert(hints.media(parser: name, payload: payload)) }
            default:
                continue
            }
        }
        return ResultSet(media: collection.media)
    }

    static let imageKinds: Set<MediaKind> = [.gif, .webp, .apng]

    /// Whether a reference can name a GIF, WebP or APNG at all (its extension is one of
    /// them): most `<img>`s on a page are JPEGs and PNGs, not worth resolving.
    static func mayNameAnimatedImage(_ reference: String) -> Bool {
        var reference = reference
        return reference.withUTF8 { bytes in
            var i = 0
            while i + 4 <= bytes.count {
                if bytes[i] == UInt8(ascii: ".") {
                    let a = bytes[i + 1] | 0x20, b = bytes[i + 2] | 0x20, c = bytes[i + 3] | 0x20
                    if a == UInt8(ascii: "g") && b == UInt8(ascii: "i") && c == UInt8(ascii: "f") { return true }
                    if i + 5 <= bytes.count {
                        let d = bytes[i + 4] | 0x20
                        if a == UInt8(ascii: "w") && b == UInt8(ascii: "e") && c == UInt8(ascii: "b") && d == UInt8(ascii: "p") { return true }
                        if a == UInt8(ascii: "a") && b == UInt8(ascii: "p") && c == UInt8(ascii: "n") && d == UInt8(ascii: "g") { return true }
                    }
                }
                i += 1
            }
            return false
        }
    }

    /// MP4 plays everywhere; then WebM; then anything else.
    static func best(_ files: [MediaHints]) -> MediaHints? {
        files.first { $0.kind == .mp4 } ?? files.first { $0.kind == .webm } ?? files.first
    }
}
