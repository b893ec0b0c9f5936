package import Foundation
package import TrawlCore

/// X / Twitter: a status URL is best read as the syndication `tweet-result` JSON
/// (`mediaDetails[].video_info.variants`, or `video.variants`); a GraphQL `TweetDetail` response
/// is read for its focal tweet only (replies are other people's media). Of the variants, the
/// mp4s count (HLS playlists do not); an animated GIF is one mp4 at bitrate 0.
package struct XSite: Site {
    package let name = "x"
    package let hosts = ["x.com", "twitter.com", "cdn.syndication.twimg.com", "video.twimg.com", "pbs.twimg.com"]
    package var parsers: [any Parser] { [XTweetParser(), XPageParser()] }
    package init() {}

    package func rewrite(_ url: URL) -> [URL] {
        guard let id = Self.statusID(url), url.host?.lowercased() != "cdn.syndication.twimg.com" else { return [] }
        return [URL(string: "https://cdn.syndication.twimg.com/tweet-result?id=\(id)&token=\(Self.token(id))&lang=en")!]
    }

    /// The id in `/USER/status/ID` (or `/i/web/status/ID`).
    static func statusID(_ url: URL) -> String? {
        let parts = url.path.split(separator: "/")
        guard let index = parts.firstIndex(of: "status"), index + 1 < parts.count else { return nil }
        let id = parts[index + 1]
        return id.allSatisfy(\.isNumber) ? String(id) : nil
    }

    /// The token the syndication endpoint asks for: (id / 1e15 · π) in base 36, without
    /// zeros and the point — what the embed script computes.
    static func token(_ id: String) -> String {
        guard let value = Double(id) else { return "0" }
        var number = value / 1e15 * Double.pi
        var integer = Int(number)
        number -= Double(integer)
        let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        var head = ""
        repeat { head = String(digits[integer % 36]) + head; integer /= 36 } while integer > 0
        var tail = ""
        for _ in 0..<10 where number > 0 {
            number *= 36
            let digit = Int(number)
            tail.append(digits[digit])
            number -= Double(digit)
        }
        return (head + tail).filter { $0 != "0" }
    }
}

/// The media of one tweet, from syndication or GraphQL JSON.
package struct XTweetParser: Parser {
    package let name = "x-tweet"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.isFetched && info.belongs(to: XSite())
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the tweet JSON")
        if json["data"]?["threaded_conversation_with_injections_v2"] != nil || json["data"]?["tweetResult"] != nil {
            let focal = XSite.statusID(payload.info.requestURL) ?? XSite.statusID(payload.info.url)
            guard let tweet = Self.focalTweet(in: json, id: focal) else {
                throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no focal tweet \(focal ?? "") in the conversation")
            }
            var set = ResultSet(media: Self.media(legacy: tweet["legacy"], title: tweet["legacy"]?["full_text"]?.string, parser: name, payload: payload))
            set.isDefinitive = true
            return set
        }
        // The v1.1 API: a status (`statuses/show`) or a timeline of them. Each status's own
        // media, or a retweet's (the same post shown again); never a quoted tweet's (another
        // post), never a user object's profile images.
        if let statuses = json.array, statuses.allSatisfy({ Self.isV1Status($0) }) {
            var collection = MediaCollection()
            for status in statuses { collection.insert(contentsOf: Self.media(v1Status: status, parser: name, payload: payload)) }
            var set = ResultSet(media: collection.media)
            set.isDefinitive = true
            return set
        }
        if Self.isV1Status(json), json["mediaDetails"] == nil {
            var set = ResultSet(media: Self.media(v1Status: json, parser: name, payload: payload))
            set.isDefinitive = true
            return set
        }
        // Syndication tweet-result.
        guard json["__typename"]?.string == "Tweet" || json["mediaDetails"] != nil || json["id_str"] != nil else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "neither a tweet-result nor a TweetDetail response")
        }
        var media = Self.media(details: json["mediaDetails"]?.array ?? [], title: json["text"]?.string, parser: name, payload: payload)
        if media.isEmpty, let variants = json["video"]?["variants"]?.array {
            var files = SiteMedia()
            files.title = json["text"]?.string
            for variant in variants { files.add(variant["src"]?.string, mimeType: variant["type"]?.string) }
            files.addStill(json["video"]?["poster"]?.string)
            media = [files.media(parser: name, payload: payload)].compactMap { $0 }
        }
        var set = ResultSet(media: media)
        // Nothing found is an answer when the tweet lists its media (all photos) or mentions
        // none at all; media under a key we do not know means the shape changed.
        let keys = json.object?.keys.map { $0.lowercased() } ?? []
        set.isDefinitive =
            !media.isEmpty || json["mediaDetails"] != nil || json["video"] != nil
            || !keys.contains { $0.contains("media") || $0.contains("video") }
        return set
    }

    /// The tweet with `id` among the conversation's entries (the first tweet when no id is known).
    static func focalTweet(in json: JSONValue, id: String?) -> JSONValue? {
        var found: JSONValue?
        var first: JSONValue?
        json.walk { value in
            guard found == nil, let result = value["tweet_results"]?["result"] ?? value["tweetResult"]?["result"] else { return }
            let tweet = result["tweet"] ?? result  // TweetWithVisibilityResults wraps the tweet
            if first == nil { first = tweet }
            if let id, tweet["rest_id"]?.string == id { found = tweet }
        }
        return found ?? (id == nil ? first : nil)
    }

    /// Whether `json` is a v1.1 status object.
    static func isV1Status(_ json: JSONValue) -> Bool {
        // Syndication answers carry `__typename`; v1.1 statuses always carry `entities`.
        json["__typename"] == nil && json["entities"] != nil && json["id_str"] != nil && json["user"] != nil
            && (json["full_text"] != nil || json["text"] != nil)
    }

    /// A v1.1 status's media: its own, else the status it retweets.
    static func media(v1Status status: JSONValue, parser: String, payload: Payload) -> [Media] {
        let own = media(legacy: status, title: (status["full_text"] ?? status["text"])?.string, parser: parser, payload: payload)
        if own.isEmpty, let retweeted = status["retweeted_status"] {
            return media(legacy: retweeted, title: (retweeted["full_text"] ?? retweeted["text"])?.string, parser: parser, payload: payload)
        }
        return own
    }

    static func media(legacy: JSONValue?, title: String?, parser: String, payload: Payload) -> [Media] {
        // The streaming API truncates a long status: its text and media move to `extended_tweet`.
        let extended = legacy?["extended_tweet"]
        let details =
            legacy?["extended_entities"]?["media"] ?? extended?["extended_entities"]?["media"] ?? legacy?["entities"]?["media"]
            ?? extended?["entities"]?["media"]
        return media(details: details?.array ?? [], title: extended?["full_text"]?.string ?? title, parser: parser, payload: payload)
    }

    /// Videos and animated GIFs of a media list; photos are stills, not results.
    static func media(details: [JSONValue], title: String?, parser: String, payload: Payload) -> [Media] {
        details.compactMap { item in
            guard let variants = item["video_info"]?["variants"]?.array else { return nil }
            var files = SiteMedia()
            files.title = title
            let size = item["original_info"] ?? item["sizes"]?["large"]
            let width = size?["width"]?.number ?? size?["w"]?.number
            let height = size?["height"]?.number ?? size?["h"]?.number
            for variant in variants where variant["content_type"]?.string == "video/mp4" {
                files.add(
                    variant["url"]?.string, name: variant["bitrate"]?.number.map { "\($0)bps" }, mimeType: "video/mp4",
                    width: width, height: height, bitrate: variant["bitrate"]?.number ?? 0)
            }
            files.addStill(item["media_url_https"]?.string, width: width, height: height)
            // Videos state their length; an animated GIF's `video_info` has none.
            files.durationSeconds = item["video_info"]?["duration_millis"]?.double.map { $0 / 1000 }
            return files.media(parser: parser, payload: payload)
        }
    }
}

/// A status page as HTML: a crawler gets only OpenGraph tags, where an animated GIF shows as
/// its thumbnail `pbs.twimg.com/tweet_video_thumb/ID.jpg` — the file is
/// `video.twimg.com/tweet_video/ID.mp4`; a rendered page has the focal tweet's `<video>` first.
/// A native video plays from a `blob:` the page alone cannot resolve: no result, not a guess.
package struct XPageParser: Parser {
    package let name = "x-page"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isHTMLDocument && info.belongs(to: XSite()) && (XSite.statusID(info.url) ?? XSite.statusID(info.requestURL)) != nil
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        var files = SiteMedia()
        files.title = document.firstMeta("og:description") ?? document.firstMeta("og:title")
        for image in document.meta("og:image") + document.meta("twitter:image") {
            guard let range = image.range(of: "/tweet_video_thumb/") else { continue }
            let id = image[range.upperBound...].prefix { $0 != "." && $0 != "?" && $0 != ":" }
            files.add("https://video.twimg.com/tweet_video/\(id).mp4", name: "gif", mimeType: "video/mp4")
            files.addStill(image)
        }
        if let video = document.mediaElements.firstIndex(where: { $0.tag == .video }) {
            let element = document.mediaElements[video]
            let sources = [element.src] + document.mediaElements.filter { $0.tag == .source && $0.parent == video }.map(\.src)
            for source in sources.compactMap({ $0 }) where source.hasPrefix("https://video.twimg.com/") {
                files.add(source, mimeType: "video/mp4", width: element.width, height: element.height)
            }
            files.addStill(element.poster)
        }
        var set = ResultSet(media: [files.media(parser: name, payload: payload)].compactMap { $0 })
        set.isDefinitive = true
        return set
    }
}
