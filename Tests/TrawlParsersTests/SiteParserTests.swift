import Foundation
import Testing
import TrawlCore
import TrawlHTML

@testable import TrawlParsers

/// A fetched page as the engine hands it to parsers: scanned, with its document summary.
func scannedPage(_ html: String, at url: String, origin: PayloadOrigin = .document) throws -> Payload {
    var payload = Payload(body: Data(html.utf8), info: PayloadInfo(url: URL(string: url)!, contentType: "text/html", origin: origin))
    payload.document = try HTMLScanner().scan(payload).summary
    return payload
}

func jsonPayload(_ json: String, at url: String) -> Payload {
    Payload(body: Data(json.utf8), info: PayloadInfo(url: URL(string: url)!, contentType: "application/json"))
}

@Suite("Site parsers: Redgifs, Streamable, Imgflip, Know Your Meme, Coub, v.redd.it, Instagram, Facebook")
struct SiteParserTests {
    // MARK: Redgifs

    @Test(
        arguments: [
            ("https://www.redgifs.com/watch/squeakyhelplesswisent", "squeakyhelplesswisent"),
            ("https://redgifs.com/watch/SqueakyHelplessWisent?utm_source=x", "squeakyhelplesswisent"),
            ("https://www.redgifs.com/ifr/squeakyhelplesswisent", "squeakyhelplesswisent"),
            ("https://thumbs2.redgifs.com/SqueakyHelplessWisent-mobile.mp4", "squeakyhelplesswisent"),
            ("https://thumbs44.redgifs.com/SqueakyHelplessWisent.webm", "squeakyhelplesswisent"),
            ("https://i.redgifs.com/i/squeakyhelplesswisent.jpg", "squeakyhelplesswisent"),
            ("https://media.redgifs.com/SqueakyHelplessWisent-poster.jpg", "squeakyhelplesswisent"),
            ("https://www.redgifs.com/browse", nil), ("https://api.redgifs.com/v2/gifs/abc", nil), ("https://www.redgifs.com/", nil),
        ] as [(String, String?)])
    func redgifsIDs(url: String, id: String?) throws {
        #expect(RedgifsSite.id(of: try #require(URL(string: url))) == id)
        #expect(RedgifsSite().rewrite(try #require(URL(string: url))).first?.absoluteString == id.map { "https://api.redgifs.com/v2/gifs/\($0)" })
    }

    @Test func redgifsSearchPageAndAnItemWithoutFiles() throws {
        let search = jsonPayload(
            """
            {"page":1,"pages":40,"total":3987,"gifs":[
              {"id":"a","width":640,"height":360,"tags":["Cat"],"urls":{"hd":"https://media.redgifs.com/A.mp4","sd":"https://media.redgifs.com/A-mobile.mp4"}},
              {"id":"b","urls":{"sd":"https://media.redgifs.com/B-mobile.mp4","poster":"https://media.redgifs.com/B-poster.jpg"}}]}
            """, at: "https://api.redgifs.com/v2/gifs/search?search_text=cat")
        let set = try RedgifsAPIParser().parse(search)
        #expect(set.media.map(\.url) == ["https://media.redgifs.com/A.mp4", "https://media.redgifs.com/B-mobile.mp4"])
        #expect(set.next == .offset(2))
        #expect(set.total == 3987)
        // Negative: an item that names only its poster is no media, and the shape is reported.
        let stillOnly = jsonPayload(#"{"gif":{"id":"c","urls":{"poster":"https://media.redgifs.com/C-poster.jpg"}}}"#, at: "https://api.redgifs.com/v2/gifs/c")
        #expect(throws: ParseError.self) { try RedgifsAPIParser().parse(stillOnly) }
    }

    // MARK: Streamable

    @Test func streamableAPIAndPage() throws {
        #expect(StreamableSite().rewrite(URL(string: "https://streamable.com/dnd1")!).map(\.absoluteString) == ["https://api.streamable.com/videos/dnd1"])
        #expect(StreamableSite().rewrite(URL(string: "https://streamable.com/e/dnd1")!).map(\.absoluteString) == ["https://api.streamable.com/videos/dnd1"])
        #expect(StreamableSite().rewrite(URL(string: "https://api.streamable.com/videos/dnd1")!).isEmpty)
        let page = try scannedPage(
            """
            <html><head><meta property="og:title" content="Streamable - free video publishing">
            <meta property="og:video" content="https://cdn.streamable.com/video/mp4/dnd1.mp4?token=a&amp;expires=1"></head>
            <body><script>var videoObject = {"title": "", "reddit_title": "Duck", "files": {"mp4": {"url": "//cdn.streamable.com/video/mp4/dnd1.mp4?token=a&amp;expires=1", "width": 640, "height": 800},
            "mp4-mobile": {"url": "//cdn.streamable.com/video/mp4-mobile/dnd1.mp4?token=b&amp;expires=1", "width": 288, "height": 360}},
            "source_url": "https://video.example.net/clip.mp4", "thumbnail_url": "//cdn.streamable.com/image/dnd1.jpg"};</script></body></html>
            """, at: "https://streamable.com/dnd1")
        let media = try #require(try StreamableParser().parse(page).media.first)
        #expect(media.url == "https://cdn.streamable.com/video/mp4/dnd1.mp4?token=a&expires=1")
        #expect(media.renditions.map(\.url) == ["https://cdn.streamable.com/video/mp4-mobile/dnd1.mp4?token=b&expires=1"])
        #expect(media.title == "Duck")
        #expect(media.still == "https://cdn.streamable.com/image/dnd1.jpg")
        // Negative: a page with no video object and no og:video (a deleted video) names nothing.
        let deleted = try scannedPage("<html><head><title>Video not found</title></head></html>", at: "https://streamable.com/gone1")
        let set = try StreamableParser().parse(deleted)
        #expect(set.media.isEmpty && !set.isDefinitive)
    }

    // MARK: Imgflip

    @Test func imgflipGIFAndStill() throws {
        #expect(ImgflipSite().rewrite(URL(string: "https://i.imgflip.com/2d3al6.mp4")!).map(\.absoluteString) == ["https://imgflip.com/gif/2d3al6"])
        #expect(ImgflipSite().rewrite(URL(string: "https://i.imgflip.com/2d3al6.jpg")!).isEmpty)
        let gif = try scannedPage(
            """
            <html><head><meta property="og:image" content="https://i.imgflip.com/2d3al6.gif"><meta property="og:title" content="Skate"></head>
            <body><video><source src="https://i.imgflip.com/2d3al6.mp4" type="video/mp4"></video><img src="https://i.imgflip.com/other.gif"></body></html>
            """, at: "https://imgflip.com/gif/2d3al6")
        let media = try ImgflipPageParser().parse(gif).media
        #expect(media.map(\.url) == ["https://i.imgflip.com/2d3al6.gif"])
        #expect(media.first?.renditions.map(\.url) == ["https://i.imgflip.com/2d3al6.mp4"])
        // Negative: a still meme.
        let still = try scannedPage(
            #"<html><head><meta property="og:image" content="https://i.imgflip.com/1dtdbv.jpg"></head><body><img src="https://i.imgflip.com/other.gif"></body></html>"#,
            at: "https://imgflip.com/i/1dtdbv")
        let set = try ImgflipPageParser().parse(still)
        #expect(set.media.isEmpty && set.isDefinitive)
    }

    // MARK: Know Your Meme

    @Test func knowYourMemeGIFAndStill() throws {
        func page(_ ext: String) throws -> Payload {
            try scannedPage(
                """
                <html><head><meta property="og:image" content="https://i.kym-cdn.com/photos/images/newsfeed/000/041/494/a1.\(ext)"><meta property="og:title" content="Rickroll"></head>
                <body><img src="https://i.kym-cdn.com/photos/images/newsfeed/000/041/494/a1.\(ext)"><aside><img src="https://i.kym-cdn.com/photos/images/masonry/000/1/2/x.gif"></aside></body></html>
                """, at: "https://knowyourmeme.com/photos/41494-rickroll")
        }
        let media = try KnowYourMemePhotoParser().parse(try page("gif")).media
        #expect(media.map(\.url) == ["https://i.kym-cdn.com/photos/images/original/000/041/494/a1.gif"])
        #expect(media.first?.renditions.map(\.url) == ["https://i.kym-cdn.com/photos/images/newsfeed/000/041/494/a1.gif"])
        #expect(media.first?.title == "Rickroll")
        // Negative: a still photo is no media, and the sidebar's GIF does not stand in for it.
        let still = try KnowYourMemePhotoParser().parse(try page("jpg"))
        #expect(still.media.isEmpty && still.isDefinitive)
        #expect(!KnowYourMemePhotoParser().canParse(PayloadInfo(url: URL(string: "https://knowyourmeme.com/memes/rickroll")!, contentType: "text/html")))
    }

    // MARK: Coub

    @Test func coubLoopFiles() throws {
        #expect(CoubSite().rewrite(URL(string: "https://coub.com/view/5u5n1")!).map(\.absoluteString) == ["https://coub.com/api/v2/coubs/5u5n1"])
        #expect(CoubSite().rewrite(URL(string: "https://coub.com/embed/5u5n1")!).map(\.absoluteString) == ["https://coub.com/api/v2/coubs/5u5n1"])
        #expect(CoubSite().rewrite(URL(string: "https://coub.com/community/animals")!).isEmpty)
        let coub = jsonPayload(
            """
            {"title":"Loop","dimensions":{"big":[1280,720]},"tags":[{"title":"cat"}],"picture":"https://c.example/p.jpg",
             "file_versions":{"html5":{"video":{"med":{"url":"https://c.example/med.mp4","size":7},"higher":{"url":"https://c.example/higher.mp4","size":29}},
             "audio":{"high":{"url":"https://c.example/a.mp3"}}},"share":{"default":"https://c.example/share.mp4"}}}
            """, at: "https://coub.com/api/v2/coubs/5u5n1")
        let set = try CoubAPIParser().parse(coub)
        let media = try #require(set.media.first)
        #expect(media.url == "https://c.example/higher.mp4")
        #expect(media.width == 1280 && media.height == 720)
        #expect(Set(media.renditions.map(\.url)) == ["https://c.example/med.mp4", "https://c.example/share.mp4"])
        #expect(!media.allURLs.contains("https://c.example/a.mp3"), "the sound track is not a video")
        #expect(set.diagnostics.contains { $0.message.contains("no sound") })
        // Negative: a coub without file versions (deleted, processing) is a changed shape, not media.
        #expect(throws: ParseError.self) { try CoubAPIParser().parse(jsonPayload(#"{"title":"Gone"}"#, at: "https://coub.com/api/v2/coubs/gone")) }
    }

    // MARK: v.redd.it and preview.redd.it

    @Test func redditShortHostsRewrite() {
        #expect(
            RedditSite().rewrite(URL(string: "https://v.redd.it/zv89llsvexdz")!).map(\.absoluteString) == ["https://v.redd.it/zv89llsvexdz/DASHPlaylist.mpd"])
        #expect(RedditSite().rewrite(URL(string: "https://v.redd.it/zv89llsvexdz/DASH_720.mp4")!).isEmpty)
        #expect(
            RedditSite().rewrite(URL(string: "https://preview.redd.it/abc123.gif?width=640&format=mp4&s=deadbeef")!).map(\.absoluteString)
                == ["https://i.redd.it/abc123.gif"])
        #expect(RedditSite().rewrite(URL(string: "https://i.redd.it/abc123.gif")!).isEmpty)
    }

    @Test func redditDASHPlaylist() throws {
        let mpd = """
            <?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period><AdaptationSet>
            <Representation bandwidth="1200000" height="360" id="VIDEO-2" mimeType="video/mp4" width="360"><BaseURL>DASH_360.mp4</BaseURL></Representation>
            <Representation bandwidth="2400000" height="720" id="VIDEO-1" mimeType="video/mp4" width="720"><BaseURL>DASH_720.mp4</BaseURL></Representation>
            </AdaptationSet><AdaptationSet><Representation id="AUDIO-1" mimeType="audio/mp4" bandwidth="131111"><BaseURL>DASH_AUDIO_128.mp4</BaseURL></Representation></AdaptationSet></Period></MPD>
            """
        let payload = Payload(
            body: Data(mpd.utf8), info: PayloadInfo(url: URL(string: "https://v.redd.it/abc/DASHPlaylist.mpd")!, contentType: "application/dash+xml"))
        let media = try #require(try RedditDASHParser().parse(payload).media.first)
        #expect(media.url == "https://v.redd.it/abc/DASH_720.mp4")
        #expect(media.width == 720)
        #expect(media.renditions.map(\.url) == ["https://v.redd.it/abc/DASH_360.mp4", "https://v.redd.it/abc/DASHPlaylist.mpd"])
        // Negative: a playlist with sound only.
        let audio = Payload(
            body: Data(#"<MPD><Representation id="AUDIO-1" mimeType="audio/mp4"><BaseURL>audio</BaseURL></Representation></MPD>"#.utf8),
            info: PayloadInfo(url: URL(string: "https://v.redd.it/abc/DASHPlaylist.mpd")!, contentType: "application/dash+xml"))
        #expect(throws: ParseError.self) { try RedditDASHParser().parse(audio) }
    }

    // MARK: Giphy and Tenor short forms

    @Test func giphyMediaHostsAreReadFromTheirPage() {
        for url in [
            "https://media1.giphy.com/media/12XMGIWtrHBl5e/giphy.gif", "https://media.giphy.com/media/v1.Y2lkPTc5/12XMGIWtrHBl5e/200w.webp",
            "https://i.giphy.com/12XMGIWtrHBl5e.gif", "https://i.giphy.com/media/12XMGIWtrHBl5e/giphy.mp4",
        ] {
            #expect(GiphySite().rewrite(URL(string: url)!).map(\.absoluteString) == ["https://giphy.com/gifs/12XMGIWtrHBl5e"], "\(url)")
        }
        #expect(GiphySite().rewrite(URL(string: "https://giphy.com/gifs/the-office-no-12XMGIWtrHBl5e")!).isEmpty)
        #expect(GiphySite().rewrite(URL(string: "https://gph.is/g/abc")!).isEmpty)
        #expect(TenorSite().claims(URL(string: "https://tenor.co/bq3Yd.gif")!))
    }

    /// A result of Tenor's API is its post's, whose page is the post's `itemurl`, not the
    /// search or posts call that listed it; a result without one keeps the API URL.
    @Test func tenorAPIResultPageIsTheItemsOwnPage() throws {
        let media = try TenorAPIParser().parse(
            jsonPayload(
                """
                {"results":[{"id":"7400000000000000001","itemurl":"https://tenor.com/view/otter-juggling-gif-7400000000000000001",
                  "media_formats":{"gif":{"url":"https://media.tenor.com/ZrIUywnkAAEAAAAC/otter-juggling.gif","dims":[498,374]}}},
                 {"id":"7400000000000000002","itemurl":"",
                  "media_formats":{"gif":{"url":"https://media.tenor.com/ZrIUywnkAAIAAAAC/otter-diving.gif","dims":[498,374]}}}],"next":""}
                """, at: "https://tenor.googleapis.com/v2/search?q=otter&key=K&client_key=trawl")
        ).media
        #expect(
            media.map(\.page) == [
                "https://tenor.com/view/otter-juggling-gif-7400000000000000001", "https://tenor.googleapis.com/v2/search?q=otter&key=K&client_key=trawl",
            ])
    }

    // MARK: Instagram and Facebook

    static let instagramEmbedVideo = #"""
        <html><head><title>Instagram</title></head><body><img class="EmbeddedMediaImage" src="https://scontent.cdninstagram.com/v/t51/poster.jpg">
        <script>window.__additionalDataLoaded('extra', {"contextJSON":"{\"context\":{\"media\":{\"is_video\":true,\"video_url\":\"https:\\\/\\\/scontent.cdninstagram.com\\\/v\\\/t50\\\/clip.mp4?_nc_ht=x\\\u0026oh=1\",\"display_url\":\"https:\\\/\\\/scontent.cdninstagram.com\\\/v\\\/t51\\\/poster.jpg\"}}}"});</script></body></html>
        """#

    @Test func instagramEmbedVideoURLAcrossEscapes() throws {
        #expect(
            InstagramSite().rewrite(URL(string: "https://www.instagram.com/reel/CxYz_1-a/?igsh=1")!).map(\.absoluteString)
                == ["https://www.instagram.com/p/CxYz_1-a/embed/captioned/"])
        #expect(InstagramSite().rewrite(URL(string: "https://www.instagram.com/natgeo/")!).isEmpty)
        let embed = try scannedPage(
            Self.instagramEmbedVideo, at: "https://www.instagram.com/p/CxYz1a/embed/captioned/", origin: .followUp(reason: "instagram source"))
        let set = try InstagramParser().parse(embed)
        #expect(set.media.map(\.url) == ["https://scontent.cdninstagram.com/v/t50/clip.mp4?_nc_ht=x&oh=1"])
        #expect(set.degradation == nil)
    }

    @Test func instagramStillOnlyPhotoAndLoginWall() throws {
        // A video post whose file is not public: its still, degraded.
        let stillOnly = try scannedPage(
            #"<html><head><meta property="og:image" content="https://scontent.cdninstagram.com/v/poster.jpg"><meta property="og:type" content="video.other"></head></html>"#,
            at: "https://www.instagram.com/p/CxYz1a/")
        let degraded = try InstagramParser().parse(stillOnly)
        #expect(degraded.media.map(\.url) == ["https://scontent.cdninstagram.com/v/poster.jpg"])
        #expect(degraded.media.first?.kind == .still)
        #expect(degraded.isDegraded)
        // Negative: a photo post holds no media.
        let photo = try scannedPage(
            #"<html><head><meta property="og:image" content="https://scontent.cdninstagram.com/v/photo.jpg"><meta property="og:type" content="instapp:photo"></head></html>"#,
            at: "https://www.instagram.com/p/BIxQ0vrBN2Y/")
        let none = try InstagramParser().parse(photo)
        #expect(none.media.isEmpty && none.isDefinitive && !none.diagnostics.contains(where: NotPublicError.isNote))
        // The login form alone: nothing public.
        let login = try scannedPage(
            "<html><head><title>Login • Instagram</title></head><body><form></form></body></html>", at: "https://www.instagram.com/p/BIxQ0vrBN2Y/")
        #expect(try InstagramParser().parse(login).diagnostics.contains(where: NotPublicError.isNote))
    }

    @Test func facebookPluginVideo() throws {
        let target = try #require(FacebookSite().rewrite(URL(string: "https://www.facebook.com/watch/?v=10153231379946729")!).first)
        #expect(target.host == "www.facebook.com" && target.path == "/plugins/video.php")
        #expect(
            URLComponents(url: target, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "href" }?.value
                == "https://www.facebook.com/watch/?v=10153231379946729")
        #expect(FacebookSite().rewrite(URL(string: "https://www.facebook.com/zuck")!).isEmpty)
        let plugin = try scannedPage(
            #"<html><body><script>{"hd_src":"https:\/\/video.xx.fbcdn.net\/v\/t42\/hd.mp4?oh=1\u0026oe=2","sd_src":"https:\/\/video.xx.fbcdn.net\/v\/t42\/sd.mp4"}</script></body></html>"#,
            at: target.absoluteString, origin: .followUp(reason: "facebook source"))
        let media = try #require(try FacebookParser().parse(plugin).media.first)
        #expect(media.url == "https://video.xx.fbcdn.net/v/t42/hd.mp4?oh=1&oe=2")
        #expect(media.renditions.map(\.url) == ["https://video.xx.fbcdn.net/v/t42/sd.mp4"])
    }

    @Test(
        arguments: [
            (#""video_url":"https://a.example/v.mp4""#, "https://a.example/v.mp4"),
            (#""video_url":"https:\/\/a.example\/v.mp4?a=1\u0026b=2""#, "https://a.example/v.mp4?a=1&b=2"),
            (#"\"video_url\":\"https:\\\/\\\/a.example\\\/v.mp4\""#, "https://a.example/v.mp4"),
            (#""video_url" : "https://a.example/spaced.mp4""#, "https://a.example/spaced.mp4"),
            (#""video_url": "not a url""#, nil),
        ] as [(String, String?)])
    func escapedStrings(text: String, expected: String?) {
        #expect(LoginWalledPage.strings(for: "video_url", in: text).first == expected)
    }
}
