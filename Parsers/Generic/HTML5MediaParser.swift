package import TrawlCore

/// `<video>` with its `<source>`s (one media, the sources its renditions, the poster its
/// still), animated `<img>` and `<picture>` sources, and the same elements in markup a script
/// builds. Tracking pixels, spinners, ad and tracker images, `aria-hidden` images and anything
/// in `<nav>`, `<aside>`, a `<footer>` or the page's `<header>` are skipped, and so are `blob:`
/// sources, which only the page's own player can read.
///
/// Results come in the order of their region: the page's `<main>` or first `<article>`, then
/// unmarked parts of the page, then script-built markup, then other posts (replies, later
/// articles). An `<img>` that names its full file beside a resized `src` (`data-original`,
/// `data-gif`, a larger `srcset` candidate) returns the full file, the others as renditions.
package struct HTML5MediaParser: Parser {
    package let name = "html5-media"
    package let stage = ParserStage.generic

    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool { info.isHTMLDocument }

    package func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        let elements = document.mediaElements
        // A lazy loader's placeholder: one src that several <img>s show while each names its
        // real file elsewhere. It is never media, and never a rendition that would make those
        // images one media.
        var placeholderCount: [String: Int] = [:]
        // One file shown in boxes of different declared sizes is a stand-in too: a picture has
        // one shape.
        var declaredBoxes: [String: Set<[Int]>] = [:]
        for element in elements where element.tag == .img {
            guard let src = element.src else { continue }
            if element.original != nil { placeholderCount[src, default: 0] += 1 }
            if let width = element.width, let height = element.height { declaredBoxes[src, default: []].insert([width, height]) }
        }
        let placeholders = Set(placeholderCount.filter { $0.value >= 2 }.keys).union(declaredBoxes.filter { $0.value.count >= 2 }.keys)
        var collection = MediaCollection()
        var ranked: [(rank: Int, media: Media)] = []
        func insert(_ media: Media, _ element: MediaElement) {
            var media = media
            // What the ranking stage reads (and `--explain` shows): where the page shows it.
            var evidence = (media.evidence ?? []) + [Self.regionNote(element.region)]
            if let width = element.width, let height = element.height { evidence.append("declared \(width)×\(height)") }
            // A strip's box (a header, a banner) is no evidence for the file it shows.
            if MediaRanking.isWellAboveIconSize(element.width, element.height), !MediaRanking.isStrip(element.width, element.height) {
                evidence.append(Evidence.largeBox)
            }
            if let alt = element.alt, !alt.isEmpty { evidence.append("alt text") }
            media.evidence = evidence
            ranked.append((Self.rank(of: element.region), media))
        }
        for (index, element) in elements.enumerated() where element.region != .peripheral && !element.isHidden {
            switch element.tag {
            case .video:
                var files: [MediaHints] = []
                if let src = element.src.flatMap(document.resolve) { files.append(MediaHints(url: src, mimeType: element.type)) }
                for source in elements where source.tag == .source && source.parent == index {
                    if let src = source.src.flatMap(document.resolve) { files.append(MediaHints(url: src, mimeType: source.type)) }
                }
                let playable = files.filter(\.isAnimatedMedia)
                guard let primary = Self.best(playable), !Decorations.isAdOrTracker(primary.url) else { continue }
                var media = primary.media(
                    parser: name, payload: payload, title: document.firstMeta("og:title") ?? document.title,
                    still: element.poster.flatMap(document.resolve))
                media.width = media.width ?? element.width
                media.height = media.height ?? element.height
                media.renditions = playable.filter { $0.url != primary.url }.map { $0.rendition() }
                insert(media, element)
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
                // The full file first (named beside src, or the largest srcset candidate), then
                // src, then the smaller candidates: the first animated one is the primary.
                var references: [(reference: String, width: Int?, isSrc: Bool)] = []
                if let original = element.original { references.append((original, nil, false)) }
                let widths = element.srcsetWidths.count == element.srcset.count ? element.srcsetWidths : element.srcset.map { _ in nil }
                let srcset = Array(zip(element.srcset, widths).reversed())
                if let largest = srcset.first, let width = largest.1, width > (element.width ?? 0) { references.append((largest.0, width, false)) }
                if let src = element.src { references.append((src, nil, true)) }
                references += srcset.map { ($0.0, $0.1, false) }
                references += sources.map { ($0, nil, false) }
                var seenReferences = Set<String>()
                let candidates: [(hints: MediaHints, isSrc: Bool)] = references.compactMap { item in
                    guard seenReferences.insert(item.reference).inserted, Self.mayNameAnimatedImage(item.reference),
                        !(item.isSrc && placeholders.contains(item.reference)),
                        let url = document.resolve(item.reference),
                        // A placeholder named as one (`blank.gif`, `lazy_placeholder.gif`).
                        !(item.isSrc && element.original != nil && Decorations.isDecoration(url, width: nil, height: nil))
                    else { return nil }
                    let hints = MediaHints(url: url, width: item.width, height: nil)
                    return hints.isAnimatedMedia && Self.imageKinds.contains(hints.kind ?? .unknown) ? (hints, item.isSrc) : nil
                }
                guard let first = candidates.first, !Decorations.isDecoration(first.hints.url, width: element.width, height: element.height),
                    !Decorations.isAdOrTracker(first.hints.url),
                    first.hints.kind != .webp || KnownMediaHosts.servesAnimatedWebP(first.hints.url)
                else { continue }
                var primary = first.hints
                // The <img>'s declared size is its src's; a full file has only what it declares.
                if first.isSrc { (primary.width, primary.height) = (element.width, element.height) }
                var media = primary.media(parser: name, payload: payload, title: element.alt.flatMap { $0.isEmpty ? nil : $0 })
                // The <img> offers a larger file than it shows (a srcset candidate wider than
                // its box): a picture someone meant to be seen, not interface art. A lazy
                // loader's `data-src` says nothing of the kind.
                if !first.isSrc, let width = first.hints.width, width > (element.width ?? 0) { media.evidence = [Evidence.linkedFullFile] }
                // Other sizes of the same image, each with the size it declares (never the <img>'s).
                media.renditions = candidates.dropFirst().filter { $0.hints.url != primary.url }.map {
                    Rendition(
                        url: $0.hints.url, kind: $0.hints.kind ?? .unknown, width: $0.isSrc ? element.width : $0.hints.width,
                        height: $0.isSrc ? element.height : nil)
                }
                insert(media, element)
            case .embed:
                guard let url = element.src.flatMap(document.resolve) else { continue }
                let hints = MediaHints(url: url, mimeType: element.type, width: element.width, height: element.height)
                if hints.isAnimatedMedia, !Decorations.isAdOrTracker(url) { insert(hints.media(parser: name, payload: payload), element) }
            default:
                continue
            }
        }
        // A stable sort: document order within a region.
        for item in ranked.enumerated().sorted(by: { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }) {
            collection.insert(item.element.media)
        }
        return ResultSet(media: collection.media)
    }

    /// How `--explain` names a region.
    static func regionNote(_ region: MediaElement.Region) -> String {
        switch region {
        case .mainContent: "in the main content"
        case .unmarked: "in the page body"
        case .script: "in markup a script builds"
        case .otherPost: "in another post"
        case .peripheral: "in page furniture"
        }
    }

    /// Regions in the order their media are returned.
    static func rank(of region: MediaElement.Region) -> Int {
        switch region {
        case .mainContent: 0
        case .unmarked: 1
        case .script: 2
        case .otherPost: 3
        case .peripheral: 4
        }
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
