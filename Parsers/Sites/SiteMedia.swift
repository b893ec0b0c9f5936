import Foundation
import TrawlCore

/// One media a site describes in several files, made into a ``Media`` by one rule.
///
/// **The primary rule.** The primary is the GIF the site calls `original`, else the largest
/// GIF (what a person asked for when they pasted a GIF page); without a GIF, the largest MP4 (by area, then by bitrate or byte size);
/// then the largest WebP, then WebM, then any other animated file. Every other animated file is
/// a rendition; stills go to ``Media/still`` (the largest one).
struct SiteMedia {
    struct File {
        var hints: MediaHints
        var name: String?
        /// Video bitrate, where a site gives one (X).
        var bitrate: Int?
    }

    var files: [File] = []
    var stills: [MediaHints] = []
    var title: String?
    /// Alt text or a content description, where the site gives one beside the title.
    var caption: String?
    /// The site's tags for the media.
    var tags: [String] = []
    /// The running time in seconds, where the site states it. Zero or less is no answer (a
    /// still's `duration: 0`).
    var durationSeconds: Double?

    mutating func add(
        _ url: String?, name: String? = nil, mimeType: String? = nil, width: Int? = nil, height: Int? = nil, byteSize: Int? = nil, bitrate: Int? = nil
    ) {
        guard let url, !url.isEmpty else { return }
        let hints = MediaHints(url: CanonicalURL.normalize(url), mimeType: mimeType, width: width, height: height, byteSize: byteSize)
        if hints.isAnimatedMedia {
            files.append(File(hints: hints, name: name, bitrate: bitrate))
        } else if hints.kind == .still || hints.kind == nil {
            stills.append(hints)
        }
    }

    mutating func addStill(_ url: String?, width: Int? = nil, height: Int? = nil) {
        guard let url, !url.isEmpty else { return }
        stills.append(MediaHints(url: CanonicalURL.normalize(url), width: width, height: height))
    }

    static func area(_ file: File) -> Int { (file.hints.width ?? 0) * (file.hints.height ?? 0) }

    /// The media, or nil when no animated file was given.
    func media(parser: String, payload: Payload) -> Media? {
        // One file listed under several names (Giphy's `downsized_large` is often the
        // original's own URL) keeps the site's "original" name, whatever order the keys had.
        var unique: [File] = []
        var indexByKey: [String: Int] = [:]
        for file in files {
            let key = CanonicalURL.key(file.hints.url)
            if let index = indexByKey[key] {
                if file.name == "original", unique[index].name != "original" { unique[index].name = "original" }
                continue
            }
            indexByKey[key] = unique.count
            unique.append(file)
        }
        let order = Self.kindOrder
        func best(_ kind: MediaKind) -> File? {
            // A `.gifv` is Imgur's page around its mp4: a rendition, never the primary.
            let candidates = unique.filter { $0.hints.kind == kind && MediaKind.pathExtension(of: $0.hints.url) != "gifv" }
            // The site's own "original" beats a larger resized copy.
            if let original = candidates.first(where: { $0.name == "original" }) { return original }
            return candidates.max { a, b in
                (Self.area(a), a.bitrate ?? 0, a.hints.byteSize ?? 0) < (Self.area(b), b.bitrate ?? 0, b.hints.byteSize ?? 0)
            }
        }
        guard let primary = order.lazy.compactMap(best).first ?? unique.first else { return nil }
        // A still that is one of the files (Pleroma's `preview_url` of a GIF is the GIF) is no still.
        let still = stills.filter { indexByKey[CanonicalURL.key($0.url)] == nil }.max {
            ($0.width ?? 0) * ($0.height ?? 0) < ($1.width ?? 0) * ($1.height ?? 0)
        }
        var media = primary.hints.media(parser: parser, payload: payload, title: title.flatMap { $0.isEmpty ? nil : $0 }, still: still?.url)
        // Renditions by what they are: kind in the primary rule's order, then largest first.
        media.caption = caption.flatMap { $0.isEmpty ? nil : $0 }
        media.durationSeconds = durationSeconds.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        let tags = Self.cleanTags(tags)
        media.tags = tags.isEmpty ? nil : tags
        media.renditions = unique.filter { $0.hints.url != primary.hints.url }
            .enumerated()
            .sorted { a, b in Self.renditionRank(a.element, a.offset) < Self.renditionRank(b.element, b.offset) }
            .map { $0.element.hints.rendition(name: $0.element.name) }
        return media
    }

    /// Tags trimmed, empty ones and repeats (ignoring case) dropped, the site's order kept.
    static func cleanTags(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.compactMap { tag in
            let trimmed = tag.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, seen.insert(trimmed.lowercased()).inserted else { return nil }
            return trimmed
        }
    }

    /// Files before playlists: an HLS or DASH playlist is the primary only when nothing else plays.
    static let kindOrder: [MediaKind] = [.gif, .mp4, .webp, .webm, .apng, .video, .hls, .dash]

    /// Sort key of a rendition: its kind's place in ``kindOrder``, then the original's own file
    /// of that kind, then larger area, then higher bitrate or byte size, then the order the site gave.
    static func renditionRank(_ file: File, _ offset: Int) -> RenditionRank {
        RenditionRank(
            kind: kindOrder.firstIndex(of: file.hints.kind ?? .unknown) ?? kindOrder.count, original: file.name == "original" ? 0 : 1,
            size: -area(file), weight: -(file.bitrate ?? file.hints.byteSize ?? 0), offset: offset)
    }

    struct RenditionRank: Comparable {
        var kind: Int, original: Int, size: Int, weight: Int, offset: Int
        static func < (a: Self, b: Self) -> Bool {
            (a.kind, a.original, a.size, a.weight, a.offset) < (b.kind, b.original, b.size, b.weight, b.offset)
        }
    }
}

extension JSONValue {
    /// A string, or a number written as text, as an Int (`"480"` → 480).
    var number: Int? { int ?? double.map { Int($0) } }
}
