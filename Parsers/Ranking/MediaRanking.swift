package import TrawlCore

/// The one place that decides whether a candidate is the page's own media.
///
/// Every media a page's payloads yield — named by its metadata or its site's post object, shown
/// in its markup, found in its text — passes here before it is returned. The rules run in order
/// and the first that applies decides:
///
/// 1. `ad-or-tracker`: served by an ad network or a tracker: never.
/// 2. `tracking-pixel`: declared 2 pixels or less on a side: never.
/// 3. `interface-image`: named or sized like interface art (a spinner, a sprite, a logo, a
///    placeholder, an icon, under 40 pixels): never.
/// 4. `named-by-page`: the page names it as its item (OpenGraph, a Twitter card, JSON-LD,
///    oEmbed, microdata, the page's state item, a site's post): kept.
/// 5. `other-post`: shown inside another post (a later `<article>`, a reply): dropped.
/// 6. `item-of-page-json`: an item of a JSON answer the page called or is (read by its
///    structure, users, ads and other posts' keys left out), or a video in a state object the
///    page embeds: kept. `moving-video`: a video shown or found on the page: kept.
/// 7. An animated image the page merely shows or mentions is media only with evidence beyond
///    its extension: a GIF site's media host (`gif-site-host`), a video of the same upload
///    (`video-rendition`), a declared size well above an icon's (`declared-size`, or
///    `size-in-name` when its file name says it), or a larger file offered beside it
///    (`linked-full-file`). Without any: `no-evidence-beyond-extension`, dropped — unless it
///    sits in the same folder as an image of the page that had evidence
///    (`beside-the-pages-media`, decided by ``PageResolution``, which sees the whole page), or
///    its own first bytes, read when the page is an article or a listing or names nothing,
///    prove an animation well above icon size (`animated-in-its-bytes`; a still is
///    `still-in-its-bytes`, an icon-sized one `small-in-its-bytes`).
package enum MediaRanking {
    /// Parsers that report what a page shows rather than what it names.
    static let shownParsers: Set<String> = ["html5-media"]
    /// Parsers that read every item of a JSON document or state object (other posts' keys,
    /// users and ads left out) when nothing names the page's item.
    static let structureParsers: Set<String> = ["state-groups"]
    /// Parsers that find media-looking URLs in text: the last resort.
    static let textParsers: Set<String> = ["regex-fallback"]

    /// How a media came to be a candidate.
    package enum Source: String {
        case named, item, shown, text
    }

    package static func source(of media: Media) -> Source {
        let parsers = media.provenance.parser.split(separator: "+").map(String.init)
        let lowerTiers = shownParsers.union(textParsers).union(structureParsers)
        if parsers.contains(where: { !lowerTiers.contains($0) }) { return .named }
        if parsers.contains(where: structureParsers.contains) { return .item }
        return parsers.contains(where: shownParsers.contains) ? .shown : .text
    }

    /// The verdict on one candidate.
    package static func judge(_ media: Media) -> Explanation {
        let urls = media.allURLs
        if Decorations.isAdOrTracker(media.url) { return Explanation(.dropped, rule: "ad-or-tracker") }
        if let width = media.width, width <= 2 { return Explanation(.dropped, rule: "tracking-pixel") }
        if let height = media.height, height <= 2 { return Explanation(.dropped, rule: "tracking-pixel") }
        if Decorations.isDecoration(media.url, width: media.width, height: media.height) {
            return Explanation(.dropped, rule: "interface-image")
        }
        let source = source(of: media)
        if source == .named { return Explanation(.kept, rule: "named-by-page") }
        // Another post on the page (a later `<article>`, a reply): its media are its own.
        if source == .shown, media.evidence?.contains(Evidence.otherPost) == true { return Explanation(.dropped, rule: "other-post") }
        // An item of a JSON answer (an API the page called, a JSON URL) is what that answer is
        // about; a state object embedded in a page also carries the interface's images, so its
        // items need evidence like the markup's.
        if source == .item, !media.provenance.origin.isEmbedded { return Explanation(.kept, rule: "item-of-page-json") }
        if !imageKinds.contains(media.kind) { return Explanation(.kept, rule: source == .item ? "item-of-page-json" : "moving-video") }
        if let verdict = bytesVerdict(media) { return verdict }
        if urls.contains(where: isGIFSiteHost) { return Explanation(.kept, rule: "gif-site-host") }
        if media.renditions.contains(where: { !imageKinds.contains($0.kind) && $0.kind.isAnimated }) {
            return Explanation(.kept, rule: "video-rendition")
        }
        // A strip under 100 pixels high offered in one file only is a section header, a
        // subscribe button, a banner; a picture offered in other files too is meant to be seen.
        let offeredOnce = media.renditions.isEmpty
        let sizes = [(media.width, media.height)] + media.renditions.map { ($0.width, $0.height) }
        if sizes.contains(where: { isWellAboveIconSize($0.0, $0.1) && !(offeredOnce && isStrip($0.0, $0.1)) })
            || media.evidence?.contains(Evidence.largeBox) == true
        {
            return Explanation(.kept, rule: "declared-size")
        }
        if let (width, height) = sizeInName(media.url), isWellAboveIconSize(width, height), !(offeredOnce && isStrip(width, height)) {
            return Explanation(.kept, rule: "size-in-name")
        }
        if media.evidence?.contains(Evidence.linkedFullFile) == true { return Explanation(.kept, rule: "linked-full-file") }
        return Explanation(.dropped, rule: Rule.noEvidence)
    }

    /// The ranking stage for one payload's candidates: each is turned to its original, judged
    /// by ``judge(_:)``, then the images that lacked evidence get a second look beside the
    /// images kept so far on the page (`keptFolders` carries those across payloads).
    package static func rank(
        _ candidates: [Media], siteParsers: Set<String>, keptFolders: inout Set<String>
    ) -> [(media: Media, verdict: Explanation)] {
        var judged = candidates.map { candidate in
            let media = preferringTheOriginal(candidate, siteParsers: siteParsers)
            return (media: media, verdict: judge(media))
        }
        for (media, verdict) in judged where verdict.verdict == .kept && imageKinds.contains(media.kind) {
            if let folder = folder(of: media.url) { keptFolders.insert(folder) }
        }
        for index in judged.indices
        where isBesideThePagesMedia(judged[index].media, verdict: judged[index].verdict, keptFolders: keptFolders) {
            judged[index].verdict = Explanation(.kept, rule: Rule.besideThePagesMedia)
        }
        return judged
    }

    /// Rule names other code tests for.
    enum Rule {
        static let noEvidence = "no-evidence-beyond-extension"
        static let besideThePagesMedia = "beside-the-pages-media"
        static let animatedInItsBytes = "animated-in-its-bytes"
        static let stillInItsBytes = "still-in-its-bytes"
        static let smallInItsBytes = "small-in-its-bytes"
    }

    /// Whether a dropped candidate is one whose own bytes may decide: an image the page shows in
    /// its body or main content that the markup gave no evidence either way (not one in another
    /// post, in furniture or in a script's markup, and not one that declares a small size).
    package static func mayBeDecidedByItsBytes(_ media: Media, verdict: Explanation) -> Bool {
        guard verdict.rule == Rule.noEvidence, source(of: media) == .shown, media.width == nil, media.height == nil else { return false }
        let notes = media.evidence ?? []
        return notes.contains(HTML5MediaParser.regionNote(.mainContent)) || notes.contains(HTML5MediaParser.regionNote(.unmarked))
    }

    /// What a file's own first bytes say, when they were read (``BytesEvidence``): an animation
    /// well above icon size is media; a still, or an animation of icon size, is not. `nil` when
    /// nothing was read or the bytes did not say.
    package static func bytesVerdict(_ media: Media) -> Explanation? {
        guard let probe = media.probe, (200..<300).contains(probe.status), !probe.dead else { return nil }
        if probe.animated == false { return Explanation(.dropped, rule: Rule.stillInItsBytes) }
        if probe.width != nil || probe.height != nil, !isWellAboveIconSize(probe.width, probe.height) {
            return Explanation(.dropped, rule: Rule.smallInItsBytes)
        }
        if probe.animated == true, isWellAboveIconSize(probe.width, probe.height) { return Explanation(.kept, rule: Rule.animatedInItsBytes) }
        return nil
    }

    /// The folder of a media URL (scheme, host and path without its file name), the unit the
    /// ``Rule/besideThePagesMedia`` rule compares.
    static func folder(of url: String) -> String? {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let slash = path.lastIndex(of: "/"), path.distance(from: path.startIndex, to: slash) > 8 else { return nil }
        return String(path[..<slash])
    }

    /// A second look at an image dropped for want of evidence: one that sits in the same folder
    /// as an image the page's evidence already kept (a blog post's GIFs, uploaded together,
    /// some declared and some not) is one of them — unless it declares a small size of its own
    /// or sits in page furniture or another post.
    static func isBesideThePagesMedia(_ media: Media, verdict: Explanation, keptFolders: Set<String>) -> Bool {
        guard verdict.rule == Rule.noEvidence, media.width == nil, media.height == nil,
            let folder = folder(of: media.url), keptFolders.contains(folder)
        else { return false }
        return media.evidence?.contains(Evidence.otherPost) != true
    }

    static let imageKinds: Set<MediaKind> = [.gif, .webp, .apng]

    /// A size no icon, badge or sponsor logo has: at least 150×100 pixels of area, no side
    /// under 50 and no banner strip longer than 8:1; with one side declared, that side at least
    /// 150.
    package static func isWellAboveIconSize(_ width: Int?, _ height: Int?) -> Bool {
        switch (width, height) {
        case let (width?, height?):
            width * height >= 15_000 && min(width, height) >= 50 && max(width, height) <= 8 * min(width, height)
        case let (side?, nil), let (nil, side?): side >= 150
        case (nil, nil): false
        }
    }

    /// Both sides declared, the short one under 100 pixels: the shape of a header or a banner.
    static func isStrip(_ width: Int?, _ height: Int?) -> Bool {
        guard let width, let height else { return false }
        return min(width, height) < 100
    }

    /// The size a file's name declares (`lede_2000x1000.gif`, `banner-728x90.gif`), as CMSs
    /// name their resizes.
    static func sizeInName(_ url: String) -> (Int, Int)? {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let name = path.split(separator: "/").last else { return nil }
        for part in name.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == "." }) {
            let sides = part.lowercased().split(separator: "x")
            guard sides.count == 2, sides.allSatisfy({ (2...5).contains($0.count) }),
                let width = Int(sides[0]), let height = Int(sides[1])
            else { continue }
            return (width, height)
        }
        return nil
    }

    /// Hosts that serve GIFs people share, whatever the page around them.
    static func isGIFSiteHost(_ url: String) -> Bool {
        guard let host = KnownMediaHosts.host(of: url)?.lowercased() else { return false }
        return gifSiteHosts.contains { host.isHost(orBelow: $0) }
    }

    static let gifSiteHosts = [
        "giphy.com", "tenor.com", "imgur.com", "redd.it", "redditmedia.com", "gfycat.com", "tumblr.com", "9cache.com", "gifs.com",
        "imgflip.com", "redgifs.com", "media.discordapp.net",
    ]
}

/// The evidence notes parsers write (``Media/evidence``) that the ranking reads back.
enum Evidence {
    static let linkedFullFile = "linked full file"
    /// ``HTML5MediaParser/regionNote(_:)`` of ``MediaElement/Region/otherPost``.
    static let otherPost = "in another post"
    /// The element showing it declares a box well above icon size (its full file, named beside
    /// it, has no size of its own).
    static let largeBox = "shown in a box well above icon size"
}

extension MediaRanking {
    /// The media's evidence for a reader: how it came to be a candidate, then what its parsers
    /// noted.
    package static func evidence(of media: Media) -> [String] {
        let how: String
        switch source(of: media) {
        case .named: how = "named by \(media.provenance.parser)"
        case .item: how = "an item of the page's JSON (\(media.provenance.parser))"
        case .shown: how = "shown in the markup"
        case .text: how = "found by \(media.provenance.parser)"
        }
        var notes = [how] + (media.evidence ?? [])
        if let probe = media.probe { notes.append(bytesNote(probe)) }
        if let width = media.width, let height = media.height, !notes.contains(where: { $0.hasPrefix("declared") }) {
            notes.append("declared \(width)×\(height)")
        }
        if let host = KnownMediaHosts.host(of: media.url) { notes.append("host \(host)") }
        return notes
    }
}

extension MediaRanking {
    /// `media` with the original file as its primary when the page named a resize or a crop of
    /// it first (an `og:image` focal crop `w1200-h630-p`, a `-300x200` thumbnail) and the
    /// original is among its files: uncropped first, then the largest. Only for what the
    /// generic parsers found; a site parser's primary rule stands.
    static func preferringTheOriginal(_ media: Media, siteParsers: Set<String>) -> Media {
        guard !siteParsers.contains(media.provenance.parser), imageKinds.contains(media.kind),
            media.renditions.contains(where: { $0.kind == media.kind })
        else { return media }
        struct File { var url: String, width: Int?, height: Int?, byteSize: Int? }
        let files =
            [File(url: media.url, width: media.width, height: media.height, byteSize: media.byteSize)]
            + media.renditions.filter { $0.kind == media.kind }.map { File(url: $0.url, width: $0.width, height: $0.height, byteSize: $0.byteSize) }
        func rank(_ file: File) -> (Int, Int) {
            let marks = ResizeMarks(file.url)
            // A file with no resize mark at all is the upload itself.
            let size = file.width ?? marks.width ?? (marks.isResized ? 0 : Int.max)
            return (marks.isCropped ? 0 : 1, size)
        }
        guard let best = files.max(by: { rank($0) < rank($1) }), best.url != media.url, rank(best) > rank(files[0]) else { return media }
        var chosen = media
        chosen.renditions.removeAll { $0.url == best.url }
        chosen.renditions.insert(Rendition(url: media.url, kind: media.kind, width: media.width, height: media.height, byteSize: media.byteSize), at: 0)
        chosen.url = best.url
        (chosen.width, chosen.height, chosen.byteSize) = (best.width, best.height, best.byteSize)
        return chosen
    }
}

extension MediaRanking {
    /// What a file's first bytes said, for a reader: `bytes: gif 480×270, animated, 12 frames`.
    static func bytesNote(_ probe: MediaProbe) -> String {
        guard (200..<300).contains(probe.status) else { return "bytes: not read (\(probe.error ?? "HTTP \(probe.status)"))" }
        var parts = [probe.format ?? "unknown format"]
        if let width = probe.width, let height = probe.height { parts[0] += " \(width)×\(height)" }
        parts.append(probe.animated.map { $0 ? "animated" : "still" } ?? "animation unknown")
        if let frames = probe.frames { parts.append("\(frames) frame\(frames == 1 ? "" : "s") read") }
        return "bytes: " + parts.joined(separator: ", ")
    }
}

/// What a media URL says about being a resize or a crop of another file.
struct ResizeMarks {
    var isResized = false
    var isCropped = false
    /// The width the URL asks for, where it says.
    var width: Int?

    init(_ url: String) {
        let parts = url.split(separator: "?", maxSplits: 1)
        let path = parts.first.map(String.init) ?? url
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                let key = kv.first?.lowercased() ?? "", value = kv.count == 2 ? String(kv[1]).lowercased() : ""
                switch key {
                case "w", "width": isResized = true; width = width ?? Int(value)
                case "h", "height", "resize", "size": isResized = true
                case "fit", "crop": isResized = true; isCropped = isCropped || value.contains("crop") || key == "crop"
                default: break
                }
            }
        }
        let segments = path.split(separator: "/")
        for segment in segments.dropLast() {
            // Blogger-style size folders: `s640`, `s72-c`, `w1200-h630-p-k-nu`.
            let pieces = segment.split(separator: "-")
            guard let first = pieces.first, first.count >= 2, let letter = first.first, "swh".contains(letter),
                let number = Int(first.dropFirst())
            else { continue }
            isResized = true
            width = width ?? number
            if pieces.dropFirst().contains(where: { $0 == "c" || $0 == "p" }) { isCropped = true }
        }
        if let name = segments.last, let size = MediaRanking.sizeInName(String(name)) {
            isResized = true
            width = width ?? size.0
        }
    }
}
