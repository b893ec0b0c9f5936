package import Foundation
package import TrawlCore

/// Facebook: videos and reels (`facebook.com/watch/?v=ID`, `/video.php?v=ID`, `/USER/videos/ID`, `/reel/ID`,
/// `fb.watch/…` short links). Their pages are for people logged in; what is public is the video
/// plugin (`facebook.com/plugins/video.php?href=…`), whose script state names `hd_src`,
/// `sd_src` or `browser_native_hd_url` / `_sd_url` / `playable_url`, and the OpenGraph tags a
/// page keeps. A video named by neither is answered by its still, *degraded*; a login form
/// alone is `not-public` (``LoginWalledPage``).
///
/// Examples:
/// - `https://www.facebook.com/watch/?v=10153231379946729` → the plugin page for it, then the page
package struct FacebookSite: Site {
    package let name = "facebook"
    package let hosts = ["facebook.com", "fb.watch", "fb.com"]
    package var parsers: [any Parser] { [FacebookParser()] }
    package init() {}

    package func rewrite(_ url: URL) -> [URL] {
        guard Self.isVideo(url), !url.path.hasPrefix("/plugins/") else { return [] }
        var plugin = URLComponents(string: "https://www.facebook.com/plugins/video.php")!
        plugin.queryItems = [URLQueryItem(name: "href", value: url.absoluteString)]
        return plugin.url.map { [$0] } ?? []
    }

    static func isVideo(_ url: URL) -> Bool {
        let path = url.path
        return path.hasPrefix("/watch") || path.contains("/videos/") || path.hasPrefix("/reel/") || path.hasPrefix("/plugins/video")
            || path == "/video.php"
    }
}

/// What a Facebook video page or its plugin shows to anyone.
package struct FacebookParser: Parser {
    package let name = "facebook"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isFetched && info.isHTML && info.belongs(to: FacebookSite()) && FacebookSite.isVideo(info.url)
    }

    static let page = LoginWalledPage(
        videoKeys: ["browser_native_hd_url", "playable_url_quality_hd", "hd_src", "browser_native_sd_url", "playable_url", "sd_src"],
        stillKeys: ["preferred_thumbnail", "thumbnailImage", "poster"], videoFlags: ["is_video"])

    package func parse(_ payload: Payload) throws -> ResultSet { Self.page.parse(payload, parser: name, knownVideo: true) }
}
