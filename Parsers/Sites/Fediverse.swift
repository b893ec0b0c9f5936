package import Foundation
package import TrawlCore

/// The fediverse: Mastodon and the servers that speak its API (Pleroma, Akkoma, GoToSocial…),
/// and Misskey. Instances live on any host, so the site claims URLs by their shape, on hosts no
/// other site lists:
///
/// | URL | read as |
/// |---|---|
/// | `https://mastodon.social/@Gargron/109391432396542043` | `https://mastodon.social/api/v1/statuses/109391432396542043` |
/// | `https://mastodon.social/users/Gargron/statuses/109391432396542043` (the ActivityPub id) | the same |
/// | `https://gts.example/@tobi/statuses/01F8MH1H7YV1Z7D2C8K2730QBF` (GoToSocial, ULID ids) | `https://gts.example/api/v1/statuses/01F8MH1H7YV1Z7D2C8K2730QBF` |
/// | `https://pleroma.example/notice/AcJ2Lz1Kf5TGq3ZKxE` (Pleroma, Akkoma) | `https://pleroma.example/api/v1/statuses/AcJ2Lz1Kf5TGq3ZKxE` |
/// | `https://misskey.io/notes/9l8rj1p0cd` (Misskey, which has no GET API for a note) | `POST https://misskey.io/api/notes/show` `{"noteId": "9l8rj1p0cd"}` |
/// | `https://HOST/api/v1/statuses/ID` | itself |
///
/// A status's own media are its `media_attachments` (`gifv`, `video`, `image`); a reblog's are the
/// reblogged status's (the same post shown again). A quoted status is another post: not read.
/// Replies are not in the status's JSON at all.
///
/// Shapes are narrow on purpose: `/@user/ID` only with a numeric id (a ULID after
/// `/statuses/`), and never on hosts that use
/// `/@user/` paths for something else (Medium's `medium.com/@user/slug-1a2b3c`, YouTube's
/// `youtube.com/@channel`). A wrong claim costs one request for the API URL on the page's own
/// host; its 404 or HTML answer is not a status, and the page is then read as any page.
package struct FediverseSite: Site {
    package let name = "fediverse"
    /// None: instances are claimed by shape.
    package let hosts: [String] = []
    package var parsers: [any Parser] { [MastodonStatusParser(), MisskeyNoteParser()] }
    package init() {}

    /// Hosts whose `/@user/…` paths are not fediverse posts.
    static let notInstances = ["medium.com", "youtube.com", "substack.com", "flickr.com", "vimeo.com", "dribbble.com"]

    /// What a status URL points at.
    enum Post: Equatable {
        /// A status in the Mastodon API: the id `/api/v1/statuses/ID` takes.
        case status(String)
        /// A Misskey note.
        case note(String)
        /// The Mastodon API URL itself.
        case api(String)
    }

    static func post(_ url: URL) -> Post? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = url.host?.lowercased(),
            !notInstances.contains(where: { host.isHost(orBelow: $0) })
        else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        func isNumeric(_ id: String) -> Bool { (1...20).contains(id.count) && id.allSatisfy(\.isASCIIDigit) }
        // GoToSocial's ids are ULIDs: 26 upper-case Crockford base-32 characters.
        func isULID(_ id: String) -> Bool { id.count == 26 && id.allSatisfy { $0.isASCIIDigit || ("A"..."Z").contains($0) } }
        func isAlphanumeric(_ id: String, _ lengths: ClosedRange<Int>) -> Bool {
            lengths.contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
        switch parts.count {
        case 2 where parts[0].hasPrefix("@") && parts[0].count > 1 && isNumeric(parts[1]):
            return .status(parts[1])
        case 2 where parts[0] == "notice" && isAlphanumeric(parts[1], 6...32) && parts[1].contains(where: \.isASCIIDigit):
            return .status(parts[1])
        case 2 where parts[0] == "notes" && isMisskeyID(parts[1]):
            return .note(parts[1])
        case 3 where parts[0].hasPrefix("@") && parts[0].count > 1 && parts[1] == "statuses" && isULID(parts[2]):
            return .status(parts[2])
        case 4 where parts[0] == "users" && parts[2] == "statuses" && (isNumeric(parts[3]) || isULID(parts[3])):
            return .status(parts[3])
        case 4 where parts[0] == "api" && parts[1] == "v1" && parts[2] == "statuses" && isAlphanumeric(parts[3], 1...32):
            return .api(parts[3])
        default:
            return nil
        }
    }

    /// Misskey's note ids: `aid` (10 base-36 characters), `aidx` (16), `meid`/`objectid` (24
    /// hex), `ulid` (26): lower-case letters and digits, both present — not a blog's
    /// `/notes/2024` or `/notes/my-trip`.
    static func isMisskeyID(_ id: String) -> Bool {
        [10, 16, 24, 26].contains(id.count) && id.allSatisfy { $0.isASCIIDigit || ("a"..."z").contains($0) }
            && id.contains(where: \.isASCIIDigit) && id.contains(where: \.isLetter)
    }

    package func claimsByShape(_ url: URL) -> Bool { Self.post(url) != nil }

    package func rewrite(_ url: URL) -> [URL] {
        guard case .status(let id) = Self.post(url), let origin = Self.origin(url) else { return [] }
        return [URL(string: "\(origin)/api/v1/statuses/\(id)")].compactMap { $0 }
    }

    package func sources(for url: URL) -> [FetchRequest] {
        guard case .note(let id) = Self.post(url), let origin = Self.origin(url), let api = URL(string: "\(origin)/api/notes/show") else {
            return rewrite(url).map { FetchRequest(url: $0) }
        }
        let body = try? JSONSerialization.data(withJSONObject: ["noteId": id])
        return [FetchRequest(url: api, method: "POST", headers: ["Content-Type": "application/json"], body: body)]
    }

    /// `https://host[:port]`, the instance's API root.
    static func origin(_ url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// A status's HTML `content` as one line of text (tags dropped, entities decoded).
    static func plainText(_ html: String?) -> String? {
        guard let html else { return nil }
        var text = ""
        var inTag = false
        var tag = ""
        for character in html {
            if character == "<" {
                inTag = true
                tag = ""
            } else if character == ">" {
                inTag = false
                // Paragraphs and line breaks part words; links and spans do not.
                let name = tag.lowercased().drop { $0 == "/" }.prefix { $0.isLetter }
                if name == "p" || name == "br" || name == "div" { text.append(" ") }
            } else if inTag {
                tag.append(character)
            } else {
                text.append(character)
            }
        }
        let words = Unescape.htmlEntities(text).split(whereSeparator: \.isWhitespace)
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// A status of the Mastodon API (`/api/v1/statuses/ID`), as Mastodon, Pleroma, Akkoma and
/// GoToSocial serve it.
package struct MastodonStatusParser: Parser {
    package let name = "mastodon-status"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.isFetched && info.belongs(to: FediverseSite()) && info.url.path.contains("/api/v1/statuses/")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the status JSON")
        guard json["id"] != nil, json["media_attachments"]?.array != nil else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "not a status (no id and media_attachments)")
        }
        // A reblog shows another status again: its media are the post's. A quote is another
        // post beside this one: its media are not.
        let status = json["reblog"]?.object != nil ? json["reblog"]! : json
        var set = ResultSet(media: Self.media(of: status, parser: name, payload: payload))
        set.isDefinitive = true
        return set
    }

    static func media(of status: JSONValue, parser: String, payload: Payload) -> [Media] {
        let title = FediverseSite.plainText(status["content"]?.string) ?? status["spoiler_text"]?.string
        let page = status["url"]?.string ?? status["uri"]?.string
        return (status["media_attachments"]?.array ?? []).compactMap { attachment in
            var files = SiteMedia()
            files.title = title
            files.caption = attachment["description"]?.string
            let original = attachment["meta"]?["original"]
            // Seconds, on `gifv`, `video` and `audio`: the original's, else the one beside it.
            files.durationSeconds = original?["duration"]?.double ?? attachment["meta"]?["duration"]?.double
            let width = original?["width"]?.number ?? attachment["meta"]?["width"]?.number
            let height = original?["height"]?.number ?? attachment["meta"]?["height"]?.number
            // `gifv` and `video` are MP4s (Mastodon turns an uploaded GIF into a gifv); an
            // `image` counts only when it is an animated file (Pleroma keeps GIFs as they are).
            let type: String? =
                switch attachment["type"]?.string {
                case "gifv", "video": "video/mp4"
                default: nil
                }
            for (key, fileName) in [("url", "original"), ("remote_url", "remote")] {
                // `remote_url`: a remote status's file as its own instance serves it.
                guard let url = attachment[key]?.string else { continue }
                if type == nil, MediaKind(urlString: url) != .gif {
                    files.addStill(url, width: width, height: height)  // a photo (a WebP too)
                } else {
                    files.add(url, name: fileName, mimeType: type, width: width, height: height)
                }
            }
            let small = attachment["meta"]?["small"]
            files.addStill(attachment["preview_url"]?.string, width: small?["width"]?.number, height: small?["height"]?.number)
            guard var media = files.media(parser: parser, payload: payload) else { return nil }
            if let page { media.page = page }
            return media
        }
    }
}

/// A Misskey note (`POST /api/notes/show`): its `files` (`type` a MIME type, `url`,
/// `thumbnailUrl`, `properties.width/height`, `comment` the alt text); a pure renote's are the
/// renoted note's.
package struct MisskeyNoteParser: Parser {
    package let name = "misskey-note"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        info.isJSON && info.isFetched && info.url.path.hasSuffix("/api/notes/show")
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the note JSON")
        guard json["id"] != nil, json["files"]?.array != nil || json["fileIds"] != nil else {
            throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "not a note (no id and files)")
        }
        var note = json
        if (note["files"]?.array ?? []).isEmpty, note["text"]?.string == nil, let renote = note["renote"], renote.object != nil { note = renote }
        let title = note["text"]?.string ?? note["cw"]?.string
        let media = (note["files"]?.array ?? []).compactMap { file -> Media? in
            var files = SiteMedia()
            files.title = title
            files.caption = file["comment"]?.string
            let width = file["properties"]?["width"]?.number, height = file["properties"]?["height"]?.number
            files.add(file["url"]?.string, name: "original", mimeType: file["type"]?.string, width: width, height: height, byteSize: file["size"]?.number)
            files.addStill(file["thumbnailUrl"]?.string)
            return files.media(parser: name, payload: payload)
        }
        var set = ResultSet(media: media)
        set.isDefinitive = true
        return set
    }
}
