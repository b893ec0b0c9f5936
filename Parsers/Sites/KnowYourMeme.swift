import Foundation
package import TrawlCore

/// Know Your Meme: photo pages (`knowyourmeme.com/photos/ID-slug`). A page names its image as
/// `og:image` on `i.kym-cdn.com`, a resized copy (`/photos/images/newsfeed/…`,
/// `/masonry/…`, `/facebook/…`) beside the uploaded file (`/photos/images/original/…`, the same
/// path), which the page shows in its main `<img>`. A GIF is media (the original first, the
/// resized copy a rendition); a still photo is none.
///
/// Examples:
/// - `https://knowyourmeme.com/photos/1234567-example-gif` → `i.kym-cdn.com/photos/images/original/…/…gif`
/// - a photo page whose image is a JPEG → nothing
package struct KnowYourMemeSite: Site {
    package let name = "knowyourmeme"
    package let hosts = ["knowyourmeme.com", "kym-cdn.com"]
    package var parsers: [any Parser] { [KnowYourMemePhotoParser()] }
    package init() {}
}

/// The image a Know Your Meme photo page is about.
package struct KnowYourMemePhotoParser: Parser {
    package let name = "knowyourmeme-photo"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isFetched && info.isHTML && info.url.host?.lowercased().hasSuffix("knowyourmeme.com") == true
            && info.url.path.hasPrefix("/photos/")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        guard let image = (document.firstMeta("og:image") ?? document.firstMeta("twitter:image")).flatMap(document.resolve) else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no og:image")
        }
        var files = SiteMedia()
        files.title = document.firstMeta("og:title") ?? document.title
        let original = Self.original(of: image)
        let shown = document.mediaElements.compactMap { $0.src.flatMap(document.resolve) }.filter { Self.original(of: $0) == original }
        if MediaKind(urlString: original) == .gif {
            let width = document.firstMeta("og:image:width").flatMap { Int($0) }, height = document.firstMeta("og:image:height").flatMap { Int($0) }
            files.add(original, name: "original", mimeType: "image/gif")
            files.add(image, name: "resized", mimeType: "image/gif", width: width, height: height)
            for url in shown { files.add(url, mimeType: "image/gif") }
        } else {
            files.addStill(image)
        }
        var set = ResultSet(media: [files.media(parser: name, payload: payload)].compactMap { $0 })
        // A still photo page holds no media: its sidebar's GIFs are other entries'.
        set.isDefinitive = true
        return set
    }

    /// The uploaded file of a resized copy: `…/photos/images/newsfeed/000/…` → `…/photos/images/original/000/…`.
    static func original(of url: String) -> String {
        for size in ["/newsfeed/", "/masonry/", "/facebook/", "/list/", "/medium/", "/small/"] {
            if let range = url.range(of: "/photos/images" + size) {
                return url.replacingCharacters(in: range, with: "/photos/images/original/")
            }
        }
        return url
    }
}
