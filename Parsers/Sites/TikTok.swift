import Foundation
package import TrawlCore

/// TikTok: a video page carries its item in a state object the page embeds, read for the video
/// named by the URL only (the page's other state — recommendations, the author's other videos —
/// is not its media):
///
/// | URL | read from |
/// |---|---|
/// | `https://www.tiktok.com/@scout2015/video/6718335390845095173` | `<script id="__UNIVERSAL_DATA_FOR_REHYDRATION__">` → `__DEFAULT_SCOPE__["webapp.video-detail"].itemInfo.itemStruct` |
/// | the same page, older | `<script id="SIGI_STATE">` → `ItemModule[ID]`; `__NEXT_DATA__` → `props.pageProps.itemInfo.itemStruct` |
/// | `https://vm.tiktok.com/ZMeAbCdEf/`, `https://vt.tiktok.com/ZSabc123/` | a redirect to the video page, followed by the fetch |
///
/// An item's `video`: `playAddr` (the clip), `downloadAddr` (the same with a watermark),
/// `bitrateInfo[].PlayAddr` (encodings with their size, each at the addresses of `UrlList`), `cover`/`originCover` (stills),
/// `width`/`height`, `duration` (whole seconds). A photo post (`imagePost`) has no animated media.
package struct TikTokSite: Site {
    package let name = "tiktok"
    package let hosts = ["tiktok.com"]
    package var parsers: [any Parser] { [TikTokItemParser()] }
    package init() {}

    /// The id in `/@user/video/ID` (or `/v/ID.html`, `/embed/v2/ID`).
    static func videoID(_ url: URL) -> String? {
        let parts = url.path.split(separator: "/").map(String.init)
        for (index, part) in parts.enumerated() where ["video", "v", "v2", "photo"].contains(part) && index + 1 < parts.count {
            let id = parts[index + 1].replacingOccurrences(of: ".html", with: "")
            if !id.isEmpty, id.allSatisfy(\.isASCIIDigit) { return id }
        }
        return nil
    }
}

/// The video item of a TikTok page's state object.
package struct TikTokItemParser: Parser {
    package let name = "tiktok-item"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.origin.isEmbedded && info.belongs(to: TikTokSite())
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the page state")
        let wanted = TikTokSite.videoID(payload.info.url) ?? TikTokSite.videoID(payload.info.requestURL)
        var items: [JSONValue] = []
        if let item = json["__DEFAULT_SCOPE__"]?["webapp.video-detail"]?["itemInfo"]?["itemStruct"]
            ?? json["props"]?["pageProps"]?["itemInfo"]?["itemStruct"]
        {
            items = [item]
        } else if let module = json["ItemModule"]?.object {
            items = wanted.flatMap { module[$0] }.map { [$0] } ?? (module.count == 1 ? Array(module.values) : [])
        } else {
            // Not the state this parser knows (another script's JSON): nothing said.
            return ResultSet()
        }
        if let wanted { items = items.filter { $0["id"]?.string == wanted || $0["id"]?.number.map(String.init) == wanted } }
        var set = ResultSet(media: items.compactMap { Self.media(of: $0, parser: name, payload: payload) })
        // The item is there: a photo post or a video, either way an answer.
        set.isDefinitive = !items.isEmpty
        return set
    }

    static func media(of item: JSONValue, parser: String, payload: Payload) -> Media? {
        guard let video = item["video"] else { return nil }
        var files = SiteMedia()
        files.title = item["desc"]?.string
        files.tags = (item["textExtra"]?.array ?? []).compactMap { $0["hashtagName"]?.string }
        files.durationSeconds = video["duration"]?.double
        let width = video["width"]?.number, height = video["height"]?.number
        files.add(video["playAddr"]?.string, name: "play", mimeType: "video/mp4", width: width, height: height, bitrate: video["bitrate"]?.number)
        for encoding in video["bitrateInfo"]?.array ?? [] {
            let address = encoding["PlayAddr"]
            // `UrlList` is one file at several addresses: the CDN's first (the one `playAddr`
            // repeats), a second CDN, and last `www.tiktok.com/aweme/v1/play/?…`, a redirector
            // on the page's host. The first is the file; the others are the same file again.
            files.add(
                address?["UrlList"]?.array?.first?.string, name: encoding["GearName"]?.string, mimeType: "video/mp4",
                width: address?["Width"]?.number ?? width, height: address?["Height"]?.number ?? height,
                byteSize: address?["DataSize"]?.number, bitrate: encoding["Bitrate"]?.number)
        }
        // The watermarked copy is a rendition: the plain clip is what was posted.
        files.add(video["downloadAddr"]?.string, name: "download", mimeType: "video/mp4", width: width, height: height, bitrate: 0)
        files.addStill(video["originCover"]?.string, width: width, height: height)
        files.addStill(video["cover"]?.string)
        guard var media = files.media(parser: parser, payload: payload) else { return nil }
        if let id = item["id"]?.string, let author = item["author"]?["uniqueId"]?.string ?? item["author"]?.string {
            media.page = "https://www.tiktok.com/@\(author)/video/\(id)"
        }
        return media
    }
}
