package import Foundation
package import TrawlCore

/// Instagram: posts, reels and IGTV (`instagram.com/p/ID/`, `/reel/ID/`, `/tv/ID/`). Post
/// pages are for people logged in; what is public is the post's embed (`/p/ID/embed/captioned/`:
/// `video_url` and `display_url` in its script state) and, on some pages, the OpenGraph tags
/// (`og:video`, `og:image`). A video whose file neither names is answered by its still,
/// *degraded*; a login form alone is `not-public` (``LoginWalledPage``).
///
/// Examples:
/// - `https://www.instagram.com/p/BUm3cvEhFMt/` → `instagram.com/p/BUm3cvEhFMt/embed/captioned/`, then the page
package struct InstagramSite: Site {
    package let name = "instagram"
    package let hosts = ["instagram.com", "instagr.am"]
    package var parsers: [any Parser] { [InstagramParser()] }
    package init() {}

    package func rewrite(_ url: URL) -> [URL] {
        guard let id = Self.postID(of: url), !url.path.contains("/embed") else { return [] }
        return [URL(string: "https://www.instagram.com/p/\(id)/embed/captioned/")!]
    }

    static func postID(of url: URL) -> String? {
        let parts = url.path.split(separator: "/").map(String.init)
        guard let index = parts.firstIndex(where: { ["p", "reel", "reels", "tv"].contains($0) }), index + 1 < parts.count else { return nil }
        let id = parts[index + 1]
        return id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } ? id : nil
    }
}

/// What an Instagram post page or its embed shows to anyone.
package struct InstagramParser: Parser {
    package let name = "instagram"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        // A post's URL, or where it redirected (the login form, for a post shown only to people logged in).
        info.isFetched && info.isHTML && info.belongs(to: InstagramSite())
            && (InstagramSite.postID(of: info.url) ?? InstagramSite.postID(of: info.requestURL)) != nil
    }

    static let page = LoginWalledPage(
        videoKeys: ["video_url"], stillKeys: ["display_url", "display_src", "thumbnail_src"], videoFlags: ["is_video"])

    package func parse(_ payload: Payload) throws -> ResultSet {
        let path = payload.info.url.path
        return Self.page.parse(payload, parser: name, knownVideo: path.contains("/reel/") || path.contains("/reels/") || path.contains("/tv/"))
    }
}
