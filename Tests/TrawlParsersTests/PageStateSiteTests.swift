import Foundation
import Testing
import TrawlCore

@testable import TrawlParsers

/// Threads, TikTok and Pinterest pages: the post, video or pin the URL names, read from the
/// state the page embeds (pages written for these tests in the shapes those sites serve), and
/// nothing of the replies, recommendations or related pins beside it.
@Suite("Threads, TikTok and Pinterest pages")
struct PageStateSiteTests {
    // MARK: Threads

    static let threadsPage = "https://www.threads.net/@catlover/post/DAbC123xYz_"

    /// A page whose first edge is another post (the parent a reply answers, or a reply shown
    /// above) and whose second is the post the URL names.
    static func threadsHTML(post: String, other: String) -> String {
        """
        <html><head><title>@catlover on Threads</title>
        <meta property="og:image" content="https://scontent.cdninstagram.com/v/t51.2885-15/og.jpg"></head><body>
        <script type="application/json" data-content-len="120" data-sjs>{"require":[["ScheduledServerJS","handle",null,[{"__bbox":{"define":[["LSD",[],{"token":"x"},323]]}}]]]}</script>
        <script type="application/json" data-content-len="4000" data-sjs>{"require":[["ScheduledServerJS","handle",null,[{"__bbox":{"require":[["RelayPrefetchedStreamCache","next",[],
          ["adp_BarcelonaPostPageQueryRelayPreloader",{"__bbox":{"result":{"data":{"data":{"edges":[
            {"node":{"thread_items":[{"post":\(other)}]}},
            {"node":{"thread_items":[{"post":\(post)}]}}]}}}}}]]]}}]]]}</script>
        </body></html>
        """
    }

    static let videoPost = """
        {"pk":"3400000000000000001","id":"3400000000000000001_1","code":"DAbC123xYz_","caption":{"text":"zoomies at 3am"},
         "user":{"username":"catlover","profile_pic_url":"https://scontent.cdninstagram.com/v/t51.2885-19/avatar.jpg"},
         "original_width":720,"original_height":1280,"accessibility_caption":null,
         "video_versions":[{"type":101,"url":"https://scontent.cdninstagram.com/o1/v/t16/f1/m82/zoomies_720.mp4","width":720,"height":1280},
                           {"type":103,"url":"https://scontent.cdninstagram.com/o1/v/t16/f1/m82/zoomies_480.mp4","width":480,"height":854}],
         "image_versions2":{"candidates":[{"url":"https://scontent.cdninstagram.com/v/t51.2885-15/zoomies.jpg","width":720,"height":1280}]},
         "carousel_media":null,"giphy_media_info":null,"text_post_app_info":{"reply_to_author":null}}
        """
    static let gifReply = """
        {"pk":"3400000000000000002","id":"3400000000000000002_2","code":"DAbD999zzz1","caption":{"text":"same"},
         "user":{"username":"someoneelse"},"video_versions":[],"image_versions2":{"candidates":[]},
         "giphy_media_info":{"first_party_cdn_proxied_images":{"fixed_height":{"url":"https://media.giphy.com/media/reply123/200.gif",
           "mp4":"https://media.giphy.com/media/reply123/200.mp4","webp":"https://media.giphy.com/media/reply123/200.webp","width":"356","height":"200"}}},
         "text_post_app_info":{"reply_to_author":{"username":"catlover"}}}
        """

    @Test func aThreadsPostIsItsVideoAndNotAReplysGIF() async throws {
        let media = try await resolvePage(Self.threadsPage, [Self.threadsPage: ("text/html", Self.threadsHTML(post: Self.videoPost, other: Self.gifReply))])
        #expect(media.map(\.url) == ["https://scontent.cdninstagram.com/o1/v/t16/f1/m82/zoomies_720.mp4"], "\(media.map(\.url))")
        #expect(media.first?.renditions.map(\.url) == ["https://scontent.cdninstagram.com/o1/v/t16/f1/m82/zoomies_480.mp4"])
        #expect(media.first?.still == "https://scontent.cdninstagram.com/v/t51.2885-15/zoomies.jpg")
        #expect(media.first?.title == "zoomies at 3am" && media.first?.width == 720)
        #expect(MediaRanking.evidence(of: try #require(media.first)).first == "named by threads-post")
    }

    @Test func aThreadsGIFAttachmentIsTheGIF() async throws {
        let post = Self.gifReply.replacingOccurrences(of: "DAbD999zzz1", with: "DAbC123xYz_")
        let photoReply = Self.videoPost.replacingOccurrences(of: "DAbC123xYz_", with: "DAbD999zzz1")
        let media = try await resolvePage(Self.threadsPage, [Self.threadsPage: ("text/html", Self.threadsHTML(post: post, other: photoReply))])
        #expect(media.map(\.url) == ["https://media.giphy.com/media/reply123/200.gif"])
        #expect(
            Set(media.first?.renditions.map(\.url) ?? []) == [
                "https://media.giphy.com/media/reply123/200.mp4", "https://media.giphy.com/media/reply123/200.webp",
            ])
    }

    // MARK: TikTok

    static let tiktokPage = "https://www.tiktok.com/@scout2015/video/6718335390845095173"
    static let item = """
        {"id":"6718335390845095173","desc":"Scramble up ur name & I'll try to guess it #foryoupage #petsoftiktok",
         "author":{"uniqueId":"scout2015","nickname":"Scout & Suki"},
         "textExtra":[{"hashtagName":"foryoupage"},{"hashtagName":"petsoftiktok"}],
         "video":{"id":"6718335390845095173","height":1280,"width":720,"duration":11,"ratio":"720p",
          "cover":"https://p16-sign-va.tiktokcdn.com/obj/tos-maliva-p-0068/cover.jpeg",
          "originCover":"https://p16-sign-va.tiktokcdn.com/obj/tos-maliva-p-0068/origin.jpeg",
          "dynamicCover":"https://p16-sign-va.tiktokcdn.com/obj/tos-maliva-p-0068/dynamic.image",
          "playAddr":"https://v16-webapp-prime.tiktok.com/video/tos/maliva/tos-maliva-ve-0068c799/play/?a=1988&br=1200&mime_type=video_mp4",
          "downloadAddr":"https://v16-webapp-prime.tiktok.com/video/tos/maliva/tos-maliva-ve-0068c799/download/?a=1988&mime_type=video_mp4",
          "bitrate":1200000,"format":"mp4",
          "bitrateInfo":[{"GearName":"normal_540_0","Bitrate":600000,"PlayAddr":{"Width":576,"Height":1024,"DataSize":812345,
            "UrlList":["https://v16-webapp-prime.tiktok.com/video/tos/maliva/normal540/?a=1988","https://v19-webapp-prime.tiktok.com/video/tos/maliva/normal540/?a=1988",
              "https://www.tiktok.com/aweme/v1/play/?faid=1988&file_id=normal540&item_id=6718335390845095173"]}}]}}
        """
    static let related = """
        {"id":"7000000000000000001","desc":"another video","author":{"uniqueId":"other"},
         "video":{"playAddr":"https://v16-webapp-prime.tiktok.com/video/tos/maliva/other/?a=1988","width":720,"height":1280}}
        """

    @Test func aTikTokVideoPageIsItsRehydratedItem() async throws {
        let html = """
            <html><head><title>Scout &amp; Suki on TikTok</title></head><body>
            <script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">{"__DEFAULT_SCOPE__":{"webapp.app-context":{"language":"en"},
              "webapp.video-detail":{"itemInfo":{"itemStruct":\(Self.item)},"statusCode":0},
              "webapp.recommend-feed":{"itemList":[\(Self.related)]}}}</script></body></html>
            """
        let media = try await resolvePage(Self.tiktokPage, [Self.tiktokPage: ("text/html", html)])
        let clip = try #require(media.first)
        #expect(media.count == 1, "\(media.map(\.url))")
        #expect(clip.url.contains("/play/") && clip.kind == .mp4 && clip.width == 720 && clip.height == 1280)
        #expect(clip.allURLs.contains { $0.contains("/download/") } && clip.allURLs.contains { $0.contains("/normal540/") })
        // An encoding's other addresses are the same file: its first (the CDN's) stands for it.
        #expect(!clip.allURLs.contains { $0.contains("v19-webapp-prime") || $0.contains("/aweme/v1/play/") })
        #expect(clip.still == "https://p16-sign-va.tiktokcdn.com/obj/tos-maliva-p-0068/origin.jpeg")
        #expect(clip.tags == ["foryoupage", "petsoftiktok"] && clip.page == Self.tiktokPage)
        #expect(MediaRanking.evidence(of: clip).first == "named by tiktok-item")
    }

    @Test func anOlderTikTokPageIsItsSIGIStateItemAndAPhotoPostIsNoMedia() async throws {
        let sigi = """
            <html><body><script id="SIGI_STATE" type="application/json">{"AppContext":{},"ItemModule":{
              "7000000000000000001":\(Self.related),"6718335390845095173":\(Self.item)},"ItemList":{}}</script></body></html>
            """
        let media = try await resolvePage(Self.tiktokPage, [Self.tiktokPage: ("text/html", sigi)])
        #expect(media.count == 1 && media.first?.url.contains("/play/") == true, "\(media.map(\.url))")

        let photoPage = "https://www.tiktok.com/@scout2015/photo/7300000000000000001"
        let photo = """
            <html><head><meta property="og:image" content="https://p16-sign-va.tiktokcdn.com/obj/photo-cover.jpeg"></head><body>
            <script id="__UNIVERSAL_DATA_FOR_REHYDRATION__" type="application/json">{"__DEFAULT_SCOPE__":{"webapp.video-detail":{"itemInfo":{"itemStruct":
              {"id":"7300000000000000001","desc":"three photos","author":{"uniqueId":"scout2015"},
               "imagePost":{"images":[{"imageURL":{"urlList":["https://p16-sign-va.tiktokcdn.com/obj/photo1.jpeg"]}}]}}}}}}</script></body></html>
            """
        #expect(try await resolvePage(photoPage, [photoPage: ("text/html", photo)]).isEmpty)
    }

    // MARK: Pinterest

    static let pinPage = "https://www.pinterest.com/pin/99360735500167749/"

    static func pinHTML(_ pin: String) -> String {
        """
        <html><head><title>Pin on Cats</title></head><body>
        <script id="__PWS_DATA__" type="application/json">{"props":{"initialReduxState":{"pins":{"99360735500167749":\(pin),
          "11111111111111111":{"id":"11111111111111111","grid_title":"Related dancing dog","images":{"orig":{"url":"https://i.pinimg.com/originals/aa/bb/cc/dog.gif","width":480,"height":270}}}}},
          "context":{"is_authenticated":false}}}</script></body></html>
        """
    }

    @Test func aGIFPinIsItsOriginalGIFAndNotARelatedPins() async throws {
        let pin = """
            {"id":"99360735500167749","grid_title":"Cat typing","description":"cat typing very fast","auto_alt_text":"a cat at a keyboard",
             "images":{"236x":{"url":"https://i.pinimg.com/236x/5f/3e/9a/cat.jpg","width":236,"height":177},
                       "orig":{"url":"https://i.pinimg.com/originals/5f/3e/9a/cat.gif","width":480,"height":360}},
             "embed":{"type":"gif","src":"https://i.pinimg.com/originals/5f/3e/9a/cat.gif","width":480,"height":360},"videos":null}
            """
        let media = try await resolvePage(Self.pinPage, [Self.pinPage: ("text/html", Self.pinHTML(pin))])
        #expect(media.map(\.url) == ["https://i.pinimg.com/originals/5f/3e/9a/cat.gif"], "\(media.map(\.url))")
        #expect(media.first?.title == "Cat typing" && media.first?.caption == "a cat at a keyboard" && media.first?.width == 480)
        #expect(MediaRanking.evidence(of: try #require(media.first)).first == "named by pinterest-pin")
    }

    @Test func aPinIsFirstReadFromItsPinResource() async throws {
        let resource = try #require(PinterestSite().rewrite(URL(string: Self.pinPage)!).first)
        #expect(
            resource.absoluteString.hasPrefix("https://www.pinterest.com/resource/PinResource/get/?data=")
                && resource.query?.contains("unauth_react_main_pin") == true)
        let story = """
            {"resource_response":{"status":"success","code":0,"data":{"id":"99360735500167749","title":"Gadget","images":{"orig":{"url":"https://i.pinimg.com/originals/ab/cd/ef/gadget.jpg"}},
             "videos":null,"story_pin_data":{"pages":[{"blocks":[{"block_type":3,"video":{"video_list":{
               "V_EXP7":{"url":"https://v1.pinimg.com/videos/iht/expMp4/ab/cd/ef/gadget_720w.mp4","width":720,"height":1280,"duration":14900},
               "V_HLSV3_MOBILE":{"url":"https://v1.pinimg.com/videos/iht/hls/ab/cd/ef/gadget.m3u8","width":720,"height":1280}}}}]}]}}}}
            """
        // Only the resource is recorded: the page is not fetched when it answers.
        let media = try await resolvePage(Self.pinPage, [resource.absoluteString: ("application/json", story)])
        #expect(media.map(\.url) == ["https://v1.pinimg.com/videos/iht/expMp4/ab/cd/ef/gadget_720w.mp4"], "\(media.map(\.url))")
        #expect(media.first?.title == "Gadget")
    }

    @Test func aVideoPinIsItsVideoListAndAStillPinIsNoMedia() async throws {
        let video = """
            {"id":"99360735500167749","title":"Kitten vs cucumber","images":{"orig":{"url":"https://i.pinimg.com/originals/12/34/56/kitten.jpg","width":720,"height":1280}},
             "videos":{"video_list":{"V_720P":{"url":"https://v1.pinimg.com/videos/mc/720p/12/34/56/kitten.mp4","width":720,"height":1280,"thumbnail":"https://i.pinimg.com/videos/thumbnails/originals/12/34/56/kitten.0000000.jpg"},
               "V_HLSV3_MOBILE":{"url":"https://v1.pinimg.com/videos/mc/hls/12/34/56/kitten.m3u8","width":720,"height":1280}}}}
            """
        let media = try await resolvePage(Self.pinPage, [Self.pinPage: ("text/html", Self.pinHTML(video))])
        #expect(media.map(\.url) == ["https://v1.pinimg.com/videos/mc/720p/12/34/56/kitten.mp4"], "\(media.map(\.url))")
        #expect(media.first?.renditions.map(\.url) == ["https://v1.pinimg.com/videos/mc/hls/12/34/56/kitten.m3u8"])

        let still = """
            {"id":"99360735500167749","grid_title":"Sleeping cat","images":{"orig":{"url":"https://i.pinimg.com/originals/de/ad/be/sleep.jpg","width":1000,"height":1500}},
             "videos":null,"embed":null}
            """
        let none = try await resolvePage(Self.pinPage, [Self.pinPage: ("text/html", Self.pinHTML(still))])
        #expect(none.isEmpty, "a still pin has no animated media, and the related GIF pin is not this one: \(none.map(\.url))")
    }
}
