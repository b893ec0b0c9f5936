import Foundation
import Testing
import TrawlCore
import TrawlEngines
import TrawlHTML

@testable import TrawlParsers

/// Mastodon-API statuses, Misskey notes and Bluesky posts, resolved from the URL a person
/// pastes through the web engine, the site's source answered by the shapes the APIs document
/// (Mastodon's `Status` and `MediaAttachment` entities, Misskey's `notes/show`, the
/// `app.bsky.embed.*#view` lexicons).
@Suite("Fediverse and Bluesky posts")
struct FediverseAndBlueskyTests {
    static let statusAPI = "https://mastodon.example/api/v1/statuses/113370000000000001"
    static let statusPage = "https://mastodon.example/@alice/113370000000000001"

    static func status(id: String = "113370000000000001", media: String = "[]", extra: String = "") -> String {
        """
        {"id":"\(id)","uri":"https://mastodon.example/users/alice/statuses/\(id)","url":"https://mastodon.example/@alice/\(id)",
         "content":"<p>Cat &amp; yarn <a href=\\"https://mastodon.example/tags/cats\\">#<span>cats</span></a></p>",
         "spoiler_text":"","account":{"id":"1","username":"alice","avatar":"https://files.mastodon.example/accounts/avatars/alice.gif"},
         "media_attachments":\(media)\(extra)}
        """
    }

    static let gifv = """
        [{"id":"22345792","type":"gifv","url":"https://files.mastodon.example/media_attachments/files/022/345/792/original/cat.mp4",
          "preview_url":"https://files.mastodon.example/media_attachments/files/022/345/792/small/cat.png","remote_url":null,
          "meta":{"length":"0:00:03.00","duration":3.0,"fps":30,"original":{"width":480,"height":270,"frame_rate":"30/1","duration":3.0},
                  "small":{"width":400,"height":225}},
          "description":"A cat batting a ball of yarn","blurhash":"UFBWY:8_0Jxv"}]
        """

    @Test func aStatusGIFVIsItsMP4WithSizeStillAltTextAndPage() async throws {
        let media = try await resolvePage(Self.statusPage, [Self.statusAPI: ("application/json; charset=utf-8", Self.status(media: Self.gifv))])
        #expect(media.map(\.url) == ["https://files.mastodon.example/media_attachments/files/022/345/792/original/cat.mp4"])
        let clip = try #require(media.first)
        #expect(clip.kind == .mp4 && clip.width == 480 && clip.height == 270)
        #expect(clip.still == "https://files.mastodon.example/media_attachments/files/022/345/792/small/cat.png")
        #expect(clip.caption == "A cat batting a ball of yarn")
        #expect(clip.title == "Cat & yarn #cats")
        #expect(clip.page == Self.statusPage)
        #expect(clip.provenance.parser == "mastodon-status")
        // What --explain prints: the site's parser named it.
        #expect(MediaRanking.judge(clip).rule == "named-by-page")
        #expect(MediaRanking.evidence(of: clip).first == "named by mastodon-status")
    }

    @Test func aReblogIsItsRebloggedStatusesMediaAndAQuoteIsNot() async throws {
        let reblog = Self.status(id: "113370000000000002", extra: #","reblog":"# + Self.status(media: Self.gifv))
        let boosted = try await resolvePage(
            "https://mastodon.example/@bob/113370000000000002",
            ["https://mastodon.example/api/v1/statuses/113370000000000002": ("application/json", reblog)])
        #expect(boosted.map(\.url) == ["https://files.mastodon.example/media_attachments/files/022/345/792/original/cat.mp4"])

        // A status quoting another: the quoted post's gifv is that post's, not this one's.
        let quote = Self.status(extra: #","reblog":null,"quote":{"state":"accepted","quoted_status":"# + Self.status(id: "9", media: Self.gifv) + "}")
        let quoting = try await resolvePage(Self.statusPage, [Self.statusAPI: ("application/json", quote)])
        #expect(quoting.isEmpty, "\(quoting.map(\.url))")
    }

    @Test func aPhotoStatusHasNoAnimatedMediaAndAPleromaGIFDoes() async throws {
        let photo = """
            [{"id":"1","type":"image","url":"https://files.mastodon.example/media_attachments/files/1/original/view.png",
              "preview_url":"https://files.mastodon.example/media_attachments/files/1/small/view.png","meta":{"original":{"width":1600,"height":900}}}]
            """
        #expect(try await resolvePage(Self.statusPage, [Self.statusAPI: ("application/json", Self.status(media: photo))]).isEmpty)
        // Pleroma and Akkoma keep an uploaded GIF as it is, an `image` attachment.
        let gif = """
            [{"id":"AcJ","type":"image","url":"https://akko.example/media/2c6c0a6e/dance.gif","preview_url":"https://akko.example/media/2c6c0a6e/dance.gif",
              "remote_url":"https://akko.example/media/2c6c0a6e/dance.gif","description":"dancing","pleroma":{"mime_type":"image/gif"}}]
            """
        let akkoma = try await resolvePage(
            "https://akko.example/notice/AcJ2Lz1Kf5TGq3ZKxE",
            ["https://akko.example/api/v1/statuses/AcJ2Lz1Kf5TGq3ZKxE": ("application/json", Self.status(id: "AcJ2Lz1Kf5TGq3ZKxE", media: gif))])
        #expect(akkoma.map(\.url) == ["https://akko.example/media/2c6c0a6e/dance.gif"])
    }

    @Test func aMisskeyNoteIsReadFromItsPostAPI() async throws {
        let note = """
            {"id":"9l8rj1p0cd","createdAt":"2026-01-01T00:00:00.000Z","userId":"9abc","text":"spinning :blobcat:","cw":null,
             "fileIds":["9xyz"],"files":[{"id":"9xyz","type":"image/gif","name":"spin.gif","size":482113,"comment":"a spinning cat",
               "properties":{"width":320,"height":320},"url":"https://media.misskey.example/files/spin.gif",
               "thumbnailUrl":"https://media.misskey.example/files/thumbnail-spin.webp"}],"renote":null}
            """
        let media = try await resolvePage("https://misskey.example/notes/9l8rj1p0cd", ["https://misskey.example/api/notes/show": ("application/json", note)])
        #expect(media.map(\.url) == ["https://media.misskey.example/files/spin.gif"])
        #expect(media.first?.caption == "a spinning cat" && media.first?.width == 320)
        #expect(media.first?.still == "https://media.misskey.example/files/thumbnail-spin.webp")
    }

    @Test func aPageThatOnlyLooksLikeAStatusIsReadAsAPageNotDegraded() async throws {
        // `/@desk/2026` has a status's shape; the host's API answers 404, and the page is read.
        let url = "https://news.example/@desk/2026"
        let page = """
            <html><head><meta property="og:video" content="https://cdn.news.example/v/desk.mp4"><meta property="og:video:type" content="video/mp4"></head></html>
            """
        let environment = Environment(
            transport: RecordedPages(pages: [url: ("text/html", page)]), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
        var sets: [ResultSet] = []
        for try await set in SearchProvider(environment: environment, webEngine: WebEngine()).results(for: Request(url)) { sets.append(set) }
        #expect(sets.flatMap(\.media).map(\.url) == ["https://cdn.news.example/v/desk.mp4"])
        #expect(sets.allSatisfy { $0.degradation == nil })
        #expect(Sites.site(for: URL(string: url)!)?.name == "fediverse", "the shape is claimed; the answer decides")
    }

    // MARK: Bluesky

    static let thread =
        "https://public.api.bsky.app/xrpc/app.bsky.feed.getPostThread?uri=at://alice.bsky.social/app.bsky.feed.post/3l6oveex3ii2l&depth=0&parentHeight=0"
    static let postPage = "https://bsky.app/profile/alice.bsky.social/post/3l6oveex3ii2l"

    static func post(embed: String, replies: String = "") -> String {
        """
        {"thread":{"$type":"app.bsky.feed.defs#threadViewPost","post":{
          "uri":"at://did:plc:alice/app.bsky.feed.post/3l6oveex3ii2l","cid":"bafyreipost",
          "author":{"did":"did:plc:alice","handle":"alice.bsky.social","avatar":"https://cdn.bsky.app/img/avatar/plain/did:plc:alice/bafkreiavatar@jpeg"},
          "record":{"$type":"app.bsky.feed.post","text":"my cat learned a trick","createdAt":"2026-01-01T00:00:00.000Z"},
          "embed":\(embed),"replyCount":1,"likeCount":3,"indexedAt":"2026-01-01T00:00:01.000Z","labels":[]}\(replies)}}
        """
    }

    static let video = """
        {"$type":"app.bsky.embed.video#view","cid":"bafkreivideo",
         "playlist":"https://video.bsky.app/watch/did%3Aplc%3Aalice/bafkreivideo/playlist.m3u8",
         "thumbnail":"https://video.bsky.app/watch/did%3Aplc%3Aalice/bafkreivideo/thumbnail.jpg",
         "alt":"a cat jumping through a hoop","aspectRatio":{"width":1080,"height":1920}}
        """
    static let tenorGIF = """
        {"$type":"app.bsky.embed.external#view","external":{
          "uri":"https://media.tenor.com/kYQmTkZ9lWkAAAAC/cat-dance.gif?hh=280&ww=498","title":"Cat Dance GIF",
          "description":"Alt: a cat dancing","thumb":"https://cdn.bsky.app/img/feed_thumbnail/plain/did:plc:alice/bafkreithumb@jpeg"}}
        """

    @Test func aBlueskyVideoIsItsPlaylistWithThumbnailSizeAndAlt() async throws {
        let media = try await resolvePage(Self.postPage, [Self.thread: ("application/json", Self.post(embed: Self.video))])
        let clip = try #require(media.first)
        #expect(media.count == 1)
        #expect(clip.url == "https://video.bsky.app/watch/did%3Aplc%3Aalice/bafkreivideo/playlist.m3u8" && clip.kind == .hls)
        #expect(clip.width == 1080 && clip.height == 1920 && clip.caption == "a cat jumping through a hoop")
        #expect(clip.still == "https://video.bsky.app/watch/did%3Aplc%3Aalice/bafkreivideo/thumbnail.jpg")
        #expect(clip.title == "my cat learned a trick" && clip.page == Self.postPage)
        #expect(MediaRanking.evidence(of: clip).first == "named by bluesky-post")
    }

    @Test func aGIFPickerLinkIsTheGIFWithItsSizeAndNotAReplysGIF() async throws {
        let reply =
            #","replies":[{"$type":"app.bsky.feed.defs#threadViewPost","post":{"uri":"at://did:plc:bob/app.bsky.feed.post/3l6ozzz","author":{"handle":"bob.bsky.social"},"record":{"text":"lol"},"embed":{"$type":"app.bsky.embed.external#view","external":{"uri":"https://media.tenor.com/bobReplyAAAAC/lol.gif?hh=200&ww=200","title":"lol"}}}}]"#
        let media = try await resolvePage(Self.postPage, [Self.thread: ("application/json", Self.post(embed: Self.tenorGIF, replies: reply))])
        #expect(media.map(\.url) == ["https://media.tenor.com/kYQmTkZ9lWkAAAAC/cat-dance.gif?hh=280&ww=498"])
        #expect(media.first?.kind == .gif && media.first?.width == 498 && media.first?.height == 280)
        #expect(media.first?.caption == "Alt: a cat dancing")
    }

    @Test func aQuotedPostsMediaIsNotThePosts() async throws {
        let quoted = """
            {"$type":"app.bsky.embed.record#viewRecord","uri":"at://did:plc:bob/app.bsky.feed.post/3kquoted","author":{"handle":"bob.bsky.social"},
             "value":{"text":"original"},"embeds":[\(Self.video)]}
            """
        // A plain quote: the quoted post's video is not this post's.
        let quote = try await resolvePage(
            Self.postPage, [Self.thread: ("application/json", Self.post(embed: #"{"$type":"app.bsky.embed.record#view","record":"# + quoted + "}"))])
        #expect(quote.isEmpty, "\(quote.map(\.url))")
        // A quote with media of its own: that media, not the quoted video.
        let withMedia = #"{"$type":"app.bsky.embed.recordWithMedia#view","media":"# + Self.tenorGIF + #","record":{"record":"# + quoted + "}}"
        let media = try await resolvePage(Self.postPage, [Self.thread: ("application/json", Self.post(embed: withMedia))])
        #expect(media.map(\.url) == ["https://media.tenor.com/kYQmTkZ9lWkAAAAC/cat-dance.gif?hh=280&ww=498"])
        // Photos are re-encoded stills: no animated media.
        let photos =
            #"{"$type":"app.bsky.embed.images#view","images":[{"thumb":"https://cdn.bsky.app/img/feed_thumbnail/plain/did:plc:alice/bafkreiimg@jpeg","fullsize":"https://cdn.bsky.app/img/feed_fullsize/plain/did:plc:alice/bafkreiimg@jpeg","alt":"a cat","aspectRatio":{"width":1000,"height":750}}]}"#
        #expect(try await resolvePage(Self.postPage, [Self.thread: ("application/json", Self.post(embed: photos))]).isEmpty)
    }
}
