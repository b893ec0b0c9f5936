package import Foundation
package import TrawlCore

/// Imgur: gallery and post pages (`twitter:player:stream` is the mp4, `og:image` the gif, the
/// microdata `contentURL` protocol-relative) and direct `i.imgur.com` links, where a `.gifv`
/// is an HTML wrapper around the `.mp4` of the same name.
package struct ImgurSite: Site {
    package let name = "imgur"
    package let hosts = ["imgur.com"]
    package var parsers: [any Parser] { [ImgurPageParser()] }
    package init() {}

    /// A pasted file (`i.imgur.com/ID.gifv`, `.mp4`, `.gif`, `.webm`) → the post's page
    /// (`imgur.com/ID`: its title and every format); a `.gifv`, which is itself a page, then
    /// falls back to the `.mp4` of the same name.
    package func rewrite(_ url: URL) -> [URL] {
        let ext = url.pathExtension.lowercased()
        guard url.host?.lowercased() == "i.imgur.com", ["gifv", "mp4", "gif", "webm"].contains(ext) else { return [] }
        let id = url.deletingPathExtension().lastPathComponent
        let page = id.count >= 5 && id.allSatisfy { $0.isLetter || $0.isNumber } ? URL(string: "https://imgur.com/\(id)") : nil
        return [page].compactMap { $0 } + (ext == "gifv" ? [url.deletingPathExtension().appendingPathExtension("mp4")] : [])
    }
}

/// The post an Imgur page shows, from its player and image metadata.
package struct ImgurPageParser: Parser {
    package let name = "imgur-page"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        // The page itself, or a post's page fetched for a pasted file (``ImgurSite/rewrite(_:)``).
        (info.isHTMLDocument || info.isFetched && info.isHTML) && info.belongs(to: ImgurSite())
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        var files = SiteMedia()
        files.title = document.firstMeta("og:title") ?? document.firstMeta("twitter:title") ?? document.title
        let width = document.firstMeta("twitter:player:width").flatMap { Int($0) } ?? document.firstMeta("og:video:width").flatMap { Int($0) }
        let height = document.firstMeta("twitter:player:height").flatMap { Int($0) } ?? document.firstMeta("og:video:height").flatMap { Int($0) }
        for key in ["twitter:player:stream", "og:video", "og:video:secure_url", "contenturl"] {
            for value in document.meta(key) {
                files.add(document.resolve(Self.playable(value)), mimeType: "video/mp4", width: width, height: height)
            }
        }
        for key in ["og:image", "twitter:image"] {
            for value in document.meta(key) {
                let url = document.resolve(Self.playable(value))
                // Imgur serves the gif as og:image; a jpg/png there is the still.
                if let url, MediaKind(urlString: url) == .gif { files.add(url, mimeType: "image/gif") } else { files.addStill(url) }
            }
        }
        // Sibling formats of the same id on i.imgur.com.
        if let mp4 = files.files.first(where: { $0.hints.kind == .mp4 })?.hints.url, mp4.contains("i.imgur.com/"),
            !files.files.contains(where: { $0.hints.kind == .gif })
        {
            files.add(String(mp4.dropLast(4)) + ".gif", name: "gif", mimeType: "image/gif")
        }
        var set = ResultSet(media: [files.media(parser: name, payload: payload)].compactMap { $0 })
        // A post page naming its image, with no video anywhere, is a still post: nothing to
        // guess. A <video> the metadata does not mention means the page changed: not definitive.
        set.isDefinitive =
            set.media.isEmpty && !document.mediaElements.contains { $0.tag == .video }
            && (document.firstMeta("og:image") != nil || document.firstMeta("twitter:image") != nil)
        return set
    }

    /// `.gifv` is a page: the file is the `.mp4`.
    static func playable(_ url: String) -> String {
        guard let dot = url.range(of: ".gifv", options: [.backwards, .caseInsensitive]) else { return url }
        return url.replacingCharacters(in: dot, with: ".mp4")
    }
}
