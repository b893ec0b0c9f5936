package import Foundation
package import TrawlCore

/// Imgflip: GIF pages (`imgflip.com/gif/ID`), image pages (`imgflip.com/i/ID`) and the files
/// themselves (`i.imgflip.com/ID.gif`, `.mp4`). A page names its file as `og:image` — a GIF
/// for a GIF, a JPG for a still meme, which is no media — and a GIF page plays the `.mp4` of the
/// same ID in its `<video>`.
///
/// Examples:
/// - `https://imgflip.com/gif/2d3al6` → `i.imgflip.com/2d3al6.gif` with `2d3al6.mp4`
/// - `https://i.imgflip.com/2d3al6.mp4` → the page `imgflip.com/gif/2d3al6`
/// - `https://imgflip.com/i/1dtdbv` (a still meme) → nothing
package struct ImgflipSite: Site {
    package let name = "imgflip"
    package let hosts = ["imgflip.com"]
    package var parsers: [any Parser] { [ImgflipPageParser()] }
    package init() {}

    /// A direct file → its GIF page, which names the title and every file.
    package func rewrite(_ url: URL) -> [URL] {
        guard url.host?.lowercased() == "i.imgflip.com", ["gif", "mp4"].contains(url.pathExtension.lowercased()) else { return [] }
        let id = url.deletingPathExtension().lastPathComponent
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber }) else { return [] }
        return [URL(string: "https://imgflip.com/gif/\(id)")!]
    }
}

/// The file an Imgflip page is about.
package struct ImgflipPageParser: Parser {
    package let name = "imgflip-page"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isFetched && info.isHTML && info.belongs(to: ImgflipSite()) && info.url.host?.lowercased() != "i.imgflip.com"
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        let path = payload.info.url.path
        guard path.hasPrefix("/gif/") || path.hasPrefix("/i/") else {
            var set = ResultSet(diagnostics: [Diagnostic(.info, "\(path) is not an Imgflip image page", source: name)])
            set.isDefinitive = true
            return set
        }
        var files = SiteMedia()
        files.title = document.firstMeta("og:title") ?? document.title
        let width = document.firstMeta("og:image:width").flatMap { Int($0) }, height = document.firstMeta("og:image:height").flatMap { Int($0) }
        guard let image = document.firstMeta("og:image").flatMap(document.resolve) else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no og:image")
        }
        if MediaKind(urlString: image) == .gif {
            files.add(image, name: "original", mimeType: "image/gif", width: width, height: height)
            // The page's player plays the mp4 of the same ID.
            for element in document.mediaElements where element.tag == .video || element.tag == .source {
                guard let source = element.src.flatMap(document.resolve), MediaKind(urlString: source) == .mp4,
                    URL(string: source)?.host?.lowercased() == "i.imgflip.com"
                else { continue }
                files.add(source, name: "mp4", mimeType: "video/mp4", width: width, height: height)
            }
        } else {
            files.addStill(image, width: width, height: height)
        }
        var set = ResultSet(media: [files.media(parser: name, payload: payload)].compactMap { $0 })
        // The page's own file is a still: a meme picture, not media.
        set.isDefinitive = true
        return set
    }
}
