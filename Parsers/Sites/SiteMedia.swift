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

    mutating func add(_ url: String?, name: String? = nil, mimeType: String? = nil, width: Int? = nil, height: Int? = nil, byteSize: Int? = nil, bitrate: Int? = nil) {
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
        var unique: [File] = []
        var seen = Set<String>()
        for file in files where seen.insert(CanonicalURL.key(file.hints.url)).inserted { unique.append(file) }
        let order: [MediaKind] = [.gif, .mp4, .webp, .webm, .apng, .video]
        func best(_ kind: MediaKind) -> File? {
            let candidates = unique.filter { $0.hints.kind == kind }
            // The site's own "original" beats a larger resized copy.
            if let original = candidates.first(where: { $0.name == "original" }) { return original }
            return candidates.max { a, b in
                (Self.area(a), a.bitrate ?? 0, a.hints.byteSize ?? 0) < (Self.area(b), b.bitrate ?? 0, b.hints.byteSize ?? 0)
            }
        }
        guard let primary = order.lazy.compactMap(best).first ?? unique.first else { return nil }
        let still = stills.max { ($0.width ?? 0) * ($0.height ?? 0) < ($1.width ?? 0) * ($1.height ?? 0) }
        var media = primary.hints.media(parser: parser, payload: payload, title: title.flatMap { $0.isEmpty ? nil : $0 }, still: still?.url)
        media.renditions = unique.filter { $0.hints.url != primary.hints.url }.map { $0.hints.rendition(name: $0.name) }
        return media
    }
}

extension JSONValue {
    /// A string, or a number written as text, as an Int (`"480"` → 480).
    var number: Int? { int ?? double.map { Int($0) } }
}
