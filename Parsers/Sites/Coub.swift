package import Foundation
package import TrawlCore

/// Coub: loops (`coub.com/view/ID`, the player `coub.com/embed/ID`) read from the public API
/// (`coub.com/api/v2/coubs/ID`): `file_versions.html5.video.{higher,high,med}` are the loop's
/// video **without its sound** (Coub plays the audio track, `html5.audio`, beside it, each
/// looping on its own); `file_versions.share.default`, where present, is one MP4 with both.
/// `dimensions.big` is the video's size, `picture` its still, `tags[].title` its tags, `duration`
/// one loop's length in seconds.
///
/// Examples:
/// - `https://coub.com/view/2pc24rpb` → `coub.com/api/v2/coubs/2pc24rpb`
package struct CoubSite: Site {
    package let name = "coub"
    package let hosts = ["coub.com"]
    package var parsers: [any Parser] { [CoubAPIParser()] }
    package init() {}

    package func rewrite(_ url: URL) -> [URL] {
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[0] == "view" || parts[0] == "embed",
            parts[1].allSatisfy({ $0.isLetter || $0.isNumber })
        else { return [] }
        return [URL(string: "https://coub.com/api/v2/coubs/\(parts[1])")!]
    }
}

/// A coub of the v2 API.
package struct CoubAPIParser: Parser {
    package let name = "coub-api"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.belongs(to: CoubSite()) && info.url.path.hasPrefix("/api/v2/coubs/")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let coub = try payload.json(parser: name, what: "the coub")
        guard let versions = coub["file_versions"] else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no file_versions")
        }
        var files = SiteMedia()
        files.title = coub["title"]?.string
        files.tags = (coub["tags"]?.array ?? []).compactMap { $0["title"]?.string }
        // One loop's length: the video files are this long, each playing over and over.
        files.durationSeconds = coub["duration"]?.double
        let big = coub["dimensions"]?["big"]?.array
        let width = big?.first?.number, height = big?.dropFirst().first?.number
        // Larger first; a size name Coub adds later still counts, after these.
        let video = versions["html5"]?["video"]
        let known = ["higher", "high", "med"]
        let names = known + (video?.object?.keys.sorted().filter { !known.contains($0) } ?? [])
        for (index, size) in names.enumerated() {
            guard let file = video?[size] else { continue }
            // Only the largest is the size `dimensions.big` gives.
            files.add(
                file["url"]?.string, name: "video-only-\(size)", mimeType: "video/mp4",
                width: index == 0 ? width : nil, height: index == 0 ? height : nil, byteSize: file["size"]?.number)
        }
        if let share = versions["share"]?["default"]?.string {
            files.add(share, name: "share-with-sound", mimeType: "video/mp4")
        }
        files.addStill(coub["picture"]?.string)
        var set = ResultSet(media: [files.media(parser: name, payload: payload)].compactMap { $0 })
        set.isDefinitive = true
        if !set.media.isEmpty {
            set.diagnostics.append(
                Diagnostic(.info, "Coub's loop files carry no sound; its audio track (file_versions.html5.audio) plays beside them", source: name))
        }
        return set
    }
}
