import Foundation
import Testing
import TrawlCore
import TrawlEngines
import TrawlHTML
import TrawlTesting

@testable import TrawlParsers

/// Pages written for these tests, served as recorded responses: the outside world, nothing else.
/// A URL not among them answers 404 (the engine's oEmbed follow-ups land there).
struct RecordedPages: PayloadTransport {
    var pages: [String: (type: String, body: String)]

    func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let page = pages[request.url.absoluteString]
        let info = PayloadInfo(url: request.url, status: page == nil ? 404 : 200, contentType: page?.type ?? "text/plain")
        let payload = Payload(body: Data((page?.body ?? "not found").utf8), info: info)
        return AsyncThrowingStream { continuation in
            continuation.yield(payload)
            continuation.finish()
        }
    }
}

/// Resolves `url` through the web engine with the real scanner and the production parser chain.
func resolvePage(_ url: String, _ pages: [String: (type: String, body: String)]) async throws -> [Media] {
    let environment = Environment(
        transport: RecordedPages(pages: pages), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
    let provider = SearchProvider(environment: environment, webEngine: WebEngine())
    var collection = MediaCollection()
    for try await set in provider.results(for: Request(url)) { collection.insert(contentsOf: set.media) }
    return collection.media
}

func resolveHTML(_ html: String, at url: String = "https://news.example/2026/11/cat-learns-to-skate-Qm81xZ") async throws -> [Media] {
    try await resolvePage(url, [url: ("text/html", html)])
}

@Suite("The page's own media")
struct PageItemTests {
    // MARK: media of other posts

    @Test func aNamedItemComesAloneWithoutRelatedPostsCommentsAndSidebars() async throws {
        let media = try await resolveHTML(
            """
            <html><head><title>Cat learns to skate</title>
            <meta property="og:video" content="https://cdn.news.example/v/skate.mp4"><meta property="og:video:type" content="video/mp4">
            <meta property="og:image" content="https://cdn.news.example/v/skate.jpg"></head>
            <body><header><img src="https://cdn.news.example/brand/wordmark.gif" width="200"></header>
            <main><article><h1>Cat learns to skate</h1>
              <video poster="https://cdn.news.example/v/skate-poster.jpg" width="640" height="360">
                <source src="https://cdn.news.example/v/skate.webm" type="video/webm">
                <source src="https://cdn.news.example/v/skate.mp4" type="video/mp4"></video>
              <article class="comment"><img src="https://cdn.news.example/u/reply-dance.gif" width="300"></article>
            </article>
            <article><h2>Dog surfs</h2><img src="https://cdn.news.example/related/dog-surfs.gif" width="400"></article></main>
            <aside><img src="https://cdn.news.example/promo/cat-week.gif" width="300"></aside>
            </body></html>
            """)
        #expect(media.map(\.url) == ["https://cdn.news.example/v/skate.mp4"])
        // The article's <video> is the same item: its other source and its poster join it.
        #expect(media.first?.renditions.map(\.url) == ["https://cdn.news.example/v/skate.webm"])
        #expect(media.first?.width == 640)
    }

    @Test func aPageThatNamesNothingReturnsItsOwnArticleFirstAndNeverItsSidebar() async throws {
        let media = try await resolveHTML(
            """
            <html><head><title>Five skating cats</title><meta property="og:image" content="https://cdn.news.example/cover.jpg"></head>
            <body><nav><img src="https://cdn.news.example/menu/animated-menu.gif" width="120"></nav>
            <div class="promo-strip"><img src="https://cdn.news.example/strip/cats-parade-anim.gif" width="600"></div>
            <article><p>Our favourite:</p><img src="https://cdn.news.example/posts/first-cat.gif" width="480">
              <section id="comments"><img src="https://cdn.news.example/u/comment-cat.gif" width="240"></section></article>
            <article><img src="https://cdn.news.example/posts/next-story.gif" width="480"></article>
            <footer><img src="https://cdn.news.example/footer/waving.gif" width="100"></footer></body></html>
            """)
        // A container marked only by its class (`promo-strip`) is page furniture too, and a
        // later <article> is another post.
        #expect(media.map(\.url) == ["https://cdn.news.example/posts/first-cat.gif"])
    }

    // MARK: tracking pixels and interface images

    @Test func pixelsSpinnersSpritesAdsAndHiddenImagesAreNotMedia() async throws {
        let media = try await resolveHTML(
            """
            <html><body>
            <img src="https://cdn.blog.example/assets/ajax-spinner.gif">
            <img src="https://cdn.blog.example/assets/ui_sprites.gif">
            <img src="https://cdn.blog.example/t.gif" width="1" height="1">
            <img src="https://securepubads.g.doubleclick.net/pcs/view.gif">
            <img src="https://ads.blog.example/creative/summer-sale.gif" width="728" height="90">
            <img src="https://cdn.blog.example/ads/leaderboard.gif" width="728">
            <img src="https://cdn.blog.example/deco/sparkles.gif" aria-hidden="true" width="300">
            <img src="https://cdn.blog.example/thumbs/post-42.webp" width="300">
            <img src="https://cdn.blog.example/b.gif?u=7&amp;e=view">
            <img src="https://cdn.blog.example/partners/magazine-logo2-cut.gif" width="300">
            <img src="https://cdn.blog.example/ui/icon_comments.gif" width="48">
            <img src="https://vs.sitetracker.example/images/zig.gif?Log=1">
            <img src="https://cdn.blog.example/count/pv.gif" width="300">
            <img src="https://cdn.blog.example/2026/cat-juggles.gif" width="400">
            </body></html>
            """)
        // The WebP: a thumbnail host with no sign of animation is a still, not evidence.
        #expect(media.map(\.url) == ["https://cdn.blog.example/2026/cat-juggles.gif"])
    }

    // MARK: state objects and script-built markup

    @Test func thePostObjectInAStateAssignmentIsTheItemEvenWhenTheBodyShowsOtherMedia() async throws {
        let media = try await resolveHTML(
            """
            <html><head><meta property="og:image" content="https://cdn.news.example/cover.jpg"></head><body>
            <div><img src="https://cdn.news.example/house/welcome-wave.gif" width="300"></div>
            <script>
            window.__SKATE_APP_STATE__ = {"entities":{"posts":{
              "Qm81xZ":{"id":"Qm81xZ","title":"Cat learns to skate","clip":{"mp4":"https://cdn.news.example/c/Qm81xZ/720.mp4","width":1280,"height":720,
                "gif":"https://cdn.news.example/c/Qm81xZ/480.gif","poster":"https://cdn.news.example/c/Qm81xZ/poster.jpg"},
                "related":[{"id":"Pz22aa","clip":{"mp4":"https://cdn.news.example/c/Pz22aa/720.mp4"}}]},
              "Hh93kd":{"id":"Hh93kd","clip":{"mp4":"https://cdn.news.example/c/Hh93kd/720.mp4"}}}}};
            </script></body></html>
            """)
        #expect(media.count == 1)
        #expect(Set(media.first?.allURLs ?? []) == ["https://cdn.news.example/c/Qm81xZ/480.gif", "https://cdn.news.example/c/Qm81xZ/720.mp4"])
        #expect(media.first?.still == "https://cdn.news.example/c/Qm81xZ/poster.jpg")
        #expect(media.first?.title == "Cat learns to skate")
        // Each file keeps the size written beside it: the mp4's, not given to the gif.
        let mp4 = media.first.flatMap { m in
            m.url.hasSuffix(".mp4") ? (m.width, m.height) : m.renditions.first { $0.kind == .mp4 }.map { ($0.width, $0.height) }
        }
        #expect(mp4?.0 == 1280 && mp4?.1 == 720)
    }

    @Test func aVarAssignedStateIsReadToo() async throws {
        let media = try await resolveHTML(
            """
            <html><body><script>var skateData = {"gif":{"slug":"cat-learns-to-skate-Qm81xZ","files":[
              {"type":"video/mp4","url":"https://cdn.news.example/f/cat.mp4","width":640,"height":360},
              {"type":"image/gif","url":"https://cdn.news.example/f/cat.gif","width":320,"height":180}]}};</script>
            <img src="https://cdn.news.example/house/other-thing.gif" width="200"></body></html>
            """)
        #expect(media.count == 1)
        #expect(media.first?.url == "https://cdn.news.example/f/cat.gif")
        #expect(media.first?.width == 320)
        #expect(media.first?.renditions.map(\.url) == ["https://cdn.news.example/f/cat.mp4"])
        #expect(media.first?.renditions.first?.width == 640)
    }

    @Test func markupAScriptBuildsAsAStringIsRead() async throws {
        let media = try await resolveHTML(
            #"""
            <html><body><div id="player"></div>
            <script>
            document.getElementById("player").innerHTML = '<img class="clip" src="https://cdn.news.example/built/skate-loop.gif" width="480">';
            var tracker = "<img src=\"https://cdn.news.example/t/1x1.gif\" width=\"1\" height=\"1\">";
            var more = "<video src=\"https:\/\/cdn.news.example\/built\/skate-loop-hd.mp4\" loop>";
            </script></body></html>
            """#)
        #expect(media.map(\.url) == ["https://cdn.news.example/built/skate-loop.gif", "https://cdn.news.example/built/skate-loop-hd.mp4"])
    }

    @Test func containersMarkedOnlyByClassHoldOtherPostsMedia() async throws {
        let media = try await resolveHTML(
            """
            <html><body><div class="post-body"><img src="https://cdn.news.example/p/mine.gif" width="480" height="270"></div>
            <div class="related-posts"><img src="https://cdn.news.example/p/theirs.gif" width="480" height="270"></div>
            <div id="comments"><div class="c"><img src="https://cdn.news.example/u/reply.gif" width="300" height="200"></div></div>
            <div class="ad-slot top"><img src="https://cdn.news.example/x/creative.gif" width="300" height="250"></div>
            <div class="sidebar"><img src="https://cdn.news.example/s/promo.gif" width="300" height="250"></div>
            <div class="thread-header download-box"><img src="https://cdn.news.example/p/also-mine.gif" width="400" height="300"></div>
            </body></html>
            """)
        #expect(media.map(\.url) == ["https://cdn.news.example/p/mine.gif", "https://cdn.news.example/p/also-mine.gif"])
    }

    @Test func aVideoPagesStateGivesItsPlayerAddressesNotItsStickers() async throws {
        let url = "https://clips.example/@cat/video/7301234567890"
        let media = try await resolvePage(
            url,
            [
                url: (
                    "text/html",
                    """
                    <html><head><meta property="og:image" content="https://p16.clips.example/cover/7301.jpeg"></head><body><div id="app"></div>
                    <script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">{"__DEFAULT_SCOPE__":{"webapp.video-detail":{"itemInfo":{"itemStruct":{
                      "id":"7301234567890","desc":"Cat on a skateboard",
                      "video":{"playAddr":"https://v16.clips.example/aa11/video/tos/7301/?mime_type=video_mp4&expire=1","downloadAddr":"https://v16.clips.example/bb22/video/tos/7301/?a=1",
                               "duration":12,"width":576,"height":1024,"cover":"https://p16.clips.example/cover/7301.jpeg"},
                      "stickersOnItem":[{"url":"https://sf.clips.example/sticker/laugh.gif"}]}}},
                      "stickers":{"list":[{"url":"https://sf.clips.example/sticker/wow.gif"},{"url":"https://sf.clips.example/emoji/heart.gif"}]}}}</script>
                    </body></html>
                    """
                )
            ])
        #expect(media.count == 1, "\(media.map(\.url))")
        #expect(
            Set(media.first?.allURLs ?? []) == [
                "https://v16.clips.example/aa11/video/tos/7301/?mime_type=video_mp4&expire=1", "https://v16.clips.example/bb22/video/tos/7301/?a=1",
            ])
        #expect(!media.flatMap(\.allURLs).contains { $0.contains("sticker") || $0.contains("emoji") })
    }

    @Test func aSubtitleTrackServedLikeItsVideoIsNotAVideo() async throws {
        // A video page's state lists its caption tracks beside the video; each track's address
        // is on the video's path with the video's `mime_type=video_mp4`, and only the field
        // beside it (`"Format": "webvtt"`) says it is text.
        let url = "https://clips.example/@cat/video/7301234567891"
        let media = try await resolvePage(
            url,
            [
                url: (
                    "text/html",
                    """
                    <html><head></head><body><div id="app"></div>
                    <script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">{"__DEFAULT_SCOPE__":{"webapp.video-detail":{"itemInfo":{"itemStruct":{
                      "id":"7301234567891","desc":"Cat on a skateboard",
                      "video":{"playAddr":"https://v16.clips.example/aa11/video/tos/7301/?mime_type=video_mp4&expire=1",
                               "duration":12,"width":576,"height":1024,
                               "subtitleInfos":[{"LanguageCodeName":"spa-ES","Format":"webvtt","Url":"https://v16.clips.example/cc33/video/tos/7301/?mime_type=video_mp4&l=es"},
                                                {"LanguageCodeName":"eng-US","MimeType":"text/vtt","Url":"https://v16.clips.example/dd44/video/tos/7301/?mime_type=video_mp4&l=en"}],
                               "subtitles":[{"language":"spa-ES","url":"https://v16.clips.example/ee55/video/tos/7301/?mime_type=video_mp4&l=es","subtitleType":"4"}],
                               "captionInfos":[{"captionFormat":"webvtt","languageCode":"es","urlList":["https://v16.clips.example/ff66/video/tos/7301/?mime_type=video_mp4&l=es"]}]}}}}}}</script>
                    </body></html>
                    """
                )
            ])
        #expect(media.map(\.url) == ["https://v16.clips.example/aa11/video/tos/7301/?mime_type=video_mp4&expire=1"], "\(media.map(\.allURLs))")
        #expect(!media.flatMap(\.allURLs).contains { ["/cc33/", "/dd44/", "/ee55/", "/ff66/"].contains(where: $0.contains) })
    }

    @Test(arguments: ["mime_type", "MimeType", "content_type", "encodingFormat"])
    func anExtensionlessFileIsAVideoWhenItsSiblingTypeSaysSo(field: String) async throws {
        let url = "https://clips.example/v/Qm81xZ"
        let media = try await resolvePage(
            url,
            [
                url: (
                    "application/json",
                    """
                    {"id":"Qm81xZ","files":[{"\(field)":"video/mp4","src":"https://cdn.clips.example/f/aa11bb22"},{"src":"https://clips.example/about"}]}
                    """
                )
            ])
        #expect(media.map(\.url) == ["https://cdn.clips.example/f/aa11bb22"])
    }

    // MARK: stills

    @Test func aStillIsNeverTheAnimation() async throws {
        let media = try await resolveHTML(
            """
            <html><body>
            <img src="https://media2.giphy.com/media/abc123XYZ/200w_s.gif" width="200">
            <video src="https://cdn.blog.example/v/loop.mp4" poster="https://cdn.blog.example/v/loop-first-frame.gif" width="400"></video>
            <img src="https://cdn.blog.example/v/loop-first-frame.gif" width="400">
            </body></html>
            """)
        #expect(media.map(\.url) == ["https://cdn.blog.example/v/loop.mp4"])
        #expect(media.first?.still == "https://cdn.blog.example/v/loop-first-frame.gif")
        #expect(MediaHints(url: "https://i.giphy.com/media/abc123XYZ/giphy_s.gif").kind == .still)
        #expect(MediaHints(url: "https://media.giphy.com/media/abc123XYZ/giphy.gif").kind == .gif)
    }

    // MARK: originals over variants

    @Test func theOriginalNamedBesideAResizedImageIsThePrimary() async throws {
        let media = try await resolveHTML(
            """
            <html><body><article>
            <img src="https://cdn.blog.example/2026/skate-320.gif" data-original="https://cdn.blog.example/2026/skate.gif" width="320" height="180">
            <img src="https://cdn.blog.example/2026/juggle-small.gif" width="300"
                 srcset="https://cdn.blog.example/2026/juggle-small.gif 300w, https://cdn.blog.example/2026/juggle.gif 900w">
            <img src="https://cdn.blog.example/2026/spin-still.jpg" data-gif="https://cdn.blog.example/2026/spin.gif" width="400">
            </article></body></html>
            """)
        #expect(
            media.map(\.url) == [
                "https://cdn.blog.example/2026/skate.gif", "https://cdn.blog.example/2026/juggle.gif", "https://cdn.blog.example/2026/spin.gif",
            ])
        #expect(media[0].width == nil)
        #expect(media[0].renditions.map(\.url) == ["https://cdn.blog.example/2026/skate-320.gif"])
        #expect(media[0].renditions.first?.width == 320 && media[0].renditions.first?.height == 180)
        #expect(media[1].width == 900)
        #expect(media[1].renditions.map(\.url) == ["https://cdn.blog.example/2026/juggle-small.gif"])
        #expect(media[1].renditions.first?.width == 300)
    }

    // MARK: one item, one media

    @Test func anAPIObjectIsOneMediaWithItsGifv() async throws {
        let url = "https://api.pics.example/3/image/Tq7Lm2x"
        let media = try await resolvePage(
            url,
            [
                url: (
                    "application/json",
                    """
                    {"data":{"id":"Tq7Lm2x","title":"Owl","width":480,"height":270,"animated":true,
                     "link":"https://i.pics.example/Tq7Lm2x.gif","mp4":"https://i.pics.example/Tq7Lm2x.mp4","gifv":"https://i.pics.example/Tq7Lm2x.gifv"},
                     "success":true}
                    """
                )
            ])
        #expect(media.count == 1)
        #expect(media.first?.url == "https://i.pics.example/Tq7Lm2x.gif")
        #expect(Set(media.first?.renditions.map(\.url) ?? []) == ["https://i.pics.example/Tq7Lm2x.mp4", "https://i.pics.example/Tq7Lm2x.gifv"])
    }

    @Test func aStateThatNamesNoItemStillGroupsEachItemsFiles() async throws {
        let media = try await resolveHTML(
            """
            <html><body><script>window.__FEED__ = {"items":[
              {"gif":"https://cdn.feed.example/a/anim.gif","mp4":"https://cdn.feed.example/a/clip.mp4"},
              {"gif":"https://cdn.feed.example/b/anim.gif","mp4":"https://cdn.feed.example/b/clip.mp4"}]};</script></body></html>
            """, at: "https://feed.example/")
        #expect(media.map(\.url) == ["https://cdn.feed.example/a/anim.gif", "https://cdn.feed.example/b/anim.gif"])
        #expect(media.map { $0.renditions.map(\.url) } == [["https://cdn.feed.example/a/clip.mp4"], ["https://cdn.feed.example/b/clip.mp4"]])
    }

    // MARK: URLs the payload names, and only those

    @Test func aRedditVideoGalleryItemGivesItsPlaylistsNotAGuessedFile() throws {
        let json = """
            [{"data":{"children":[{"kind":"t3","data":{"id":"1q2w3e","title":"Mixed","is_gallery":true,
              "gallery_data":{"items":[{"media_id":"vid1"},{"media_id":"gif1"}]},
              "media_metadata":{
                "vid1":{"status":"valid","e":"RedditVideo","id":"vid1","x":1280,"y":720,"hlsUrl":"https://v.redd.it/link/1q2w3e/asset/vid1/HLSPlaylist.m3u8","dashUrl":"https://v.redd.it/link/1q2w3e/asset/vid1/DASHPlaylist.mpd"},
                "gif1":{"status":"valid","e":"AnimatedImage","id":"gif1","s":{"x":400,"y":300,"gif":"https://i.redd.it/gif1.gif","mp4":"https://preview.redd.it/gif1.gif?format=mp4&amp;s=abc"}}}}}]}},
             {"data":{"children":[]}}]
            """
        let info = PayloadInfo(url: URL(string: "https://www.reddit.com/comments/1q2w3e/.json?raw_json=1")!, contentType: "application/json")
        let media = try RedditJSONParser().parse(Payload(body: Data(json.utf8), info: info)).media
        // Gallery order; the video item is its HLS playlist, its DASH manifest a rendition.
        #expect(media.map(\.url) == ["https://v.redd.it/link/1q2w3e/asset/vid1/HLSPlaylist.m3u8", "https://i.redd.it/gif1.gif"])
        #expect(media.first?.kind == .hls)
        #expect(media.first?.renditions.map(\.kind) == [.dash])
        #expect(!media.flatMap(\.allURLs).contains { $0.contains("DASH_") })
    }

    @Test func preconnectAndDNSPrefetchHostsAreNotMedia() {
        let text = """
            <link rel="preconnect" href="https://v.redd.it/"><link rel="dns-prefetch" href="//video.twimg.com">
            <link rel="preconnect" href="https://video.twimg.com"><a href="https://v.redd.it/?utm=x">x</a>
            <script>var clip = "https://v.redd.it/k3j4h5g6/DASH_720.mp4", post = "https://v.redd.it/k3j4h5g6"</script>
            """
        // `v.redd.it/ID` alone redirects to the post's page: only its files are media.
        let found = Array(text.utf8).withUnsafeBufferPointer { RegexFallbackParser.scan($0, limit: 10) }
        #expect(found == ["https://v.redd.it/k3j4h5g6/DASH_720.mp4"])
        // Nor are an ad network's images, found in any text.
        let ads = Array(
            #"x("https://tpc.googlesyndication.com/simgad/123/creative.gif"); z("https://idsync.rlcdn.com/379708.gif?partner_uid="); y("https://m.example/real.gif")"#
                .utf8)
        #expect(ads.withUnsafeBufferPointer { RegexFallbackParser.scan($0, limit: 10) } == ["https://m.example/real.gif"])
    }

    // MARK: renditions keep their own sizes

    @Test func renditionsDoNotCopyThePrimarysSize() throws {
        let json = """
            {"@type":"VideoObject","name":"Clip","width":640,"height":360,
             "contentUrl":["https://m.example/clip.mp4","https://m.example/clip.webm"]}
            """
        let info = PayloadInfo(
            url: URL(string: "https://site.example/p")!, contentType: "application/json", origin: .embedded(.init(kind: .linkedData, scriptIndex: 0)))
        let media = try JSONLDParser().parse(Payload(body: Data(json.utf8), info: info)).media
        #expect(media.first?.width == 640)
        #expect(media.first?.renditions.map(\.url) == ["https://m.example/clip.webm"])
        #expect(media.first?.renditions.first?.width == nil && media.first?.renditions.first?.height == nil)

        let page = try documentPayload(
            """
            <meta name="twitter:image" content="https://m.example/one.gif"><meta name="twitter:image:width" content="500">
            <meta name="twitter:image" content="https://m.example/two.gif">
            """)
        let cards = try TwitterCardParser().parse(page).media
        #expect(cards.map(\.width) == [500, nil])
    }

    // MARK: Giphy

    @Test func giphyPrimaryIsTheOriginalWhenAnotherNameSharesItsURL() throws {
        let base = "https://media1.giphy.com/media/Gx7qLm2Z"
        let json = """
            {"data":{"id":"Gx7qLm2Z","title":"Skate GIF","images":{
              "downsized_large":{"url":"\(base)/giphy.gif","width":"240","height":"196","size":"3406796"},
              "fixed_height":{"url":"\(base)/200.gif","width":"245","height":"200","mp4":"\(base)/200.mp4","webp":"\(base)/200.webp"},
              "fixed_width_small":{"url":"\(base)/100w.gif","width":"100","height":"82"},
              "original":{"url":"\(base)/giphy.gif","width":"240","height":"196","mp4":"\(base)/giphy.mp4","webp":"\(base)/giphy.webp"},
              "original_still":{"url":"\(base)/giphy_s.gif","width":"240","height":"196"},
              "480w_still":{"url":"\(base)/480w_s.jpg","width":"480","height":"392"}}}}
            """
        let info = PayloadInfo(url: URL(string: "https://api.giphy.com/v1/gifs/Gx7qLm2Z")!, contentType: "application/json")
        let media = try GiphyAPIParser().parse(Payload(body: Data(json.utf8), info: info)).media
        #expect(media.first?.url == "\(base)/giphy.gif")
        #expect(media.first?.width == 240)
        // Renditions by what they are: GIFs largest first, then MP4s, then WebPs; stills apart.
        #expect(
            media.first?.renditions.map(\.url) == [
                "\(base)/200.gif", "\(base)/100w.gif", "\(base)/giphy.mp4", "\(base)/200.mp4", "\(base)/giphy.webp", "\(base)/200.webp",
            ])
        #expect(media.first?.renditions.first?.name == "fixed_height")
        #expect(media.first?.still == "\(base)/480w_s.jpg")
    }
}

@Suite("Giphy's real page")
struct GiphyRealPageTests {
    /// The saved Giphy page lists `downsized_large` (same URL as the original) before `original`
    /// and a `fixed_height` larger than both: the primary must still be the original. Never
    /// skipped: without ../shared/corpus, `Corpus.siteEntries()` throws naming what is missing.
    @Test func thePrimaryOfTheSavedPageIsTheOriginal() async throws {
        let entry = try #require(try Corpus.siteEntries().first { $0.file == "giphy/gif-page-the-office-no.html" })
        let html = try String(contentsOf: entry.path, encoding: .utf8)
        let media = try await resolvePage(entry.url, [entry.url: ("text/html", html)])
        #expect(media.count == 1)
        #expect(media.first?.url.hasSuffix("/12XMGIWtrHBl5e/giphy.gif") == true)
        let kinds = media.first?.renditions.map(\.kind) ?? []
        // GIFs, then MP4s, then WebPs: grouped by what they are.
        #expect(kinds == kinds.sorted { SiteMedia.kindOrder.firstIndex(of: $0) ?? 9 < SiteMedia.kindOrder.firstIndex(of: $1) ?? 9 })
        #expect(media.first?.renditions.first(where: { $0.kind == .mp4 })?.url.hasSuffix("/12XMGIWtrHBl5e/giphy.mp4") == true)
    }
}
