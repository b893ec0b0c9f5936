import Foundation
import Testing
import TrawlCore

@testable import TrawlParsers

/// API answers that list many posts, and single posts inside other people's: every listed post's
/// own media, never a comment's, a quoted post's or a profile's.
@Suite("Listings and posts")
struct ListingTests {
    static func payload(_ json: String, at url: String) -> Payload {
        Payload(body: Data(json.utf8), info: PayloadInfo(url: URL(string: url)!, contentType: "application/json"))
    }

    static let redditListing = """
        {"kind":"Listing","data":{"after":"t3_zz9","children":[
          {"kind":"t3","data":{"id":"aa1","title":"Cat jumps","url":"https://i.imgur.com/Kq3xZ9a.gifv","post_hint":"link"}},
          {"kind":"t3","data":{"id":"aa2","title":"A still","url":"https://i.redd.it/p0stst1ll.jpg","post_hint":"image",
            "preview":{"images":[{"source":{"url":"https://preview.redd.it/p0stst1ll.jpg?s=1","width":800,"height":600}}]}}},
          {"kind":"t3","data":{"id":"aa3","title":"Words","is_self":true,"selftext":"see https://i.imgur.com/Zz9yX8w.gif"}},
          {"kind":"t3","data":{"id":"aa4","title":"Dog naps","url":"https://i.redd.it/3lld01w00qlz.gif","post_hint":"image",
            "preview":{"images":[{"source":{"url":"https://i.redditmedia.com/HLzqL8nYBAeZ.gif?fm=jpg&s=1","width":400,"height":300},
              "resolutions":[{"url":"https://i.redditmedia.com/HLzqL8nYBAeZ.gif?w=108&fm=jpg&s=2","width":108,"height":81}],
              "variants":{"gif":{"source":{"url":"https://g.redditmedia.com/HLzqL8nYBAeZ.gif?s=3","width":400,"height":300},
                                 "resolutions":[{"url":"https://g.redditmedia.com/HLzqL8nYBAeZ.gif?w=108&s=4","width":108,"height":81}]},
                          "mp4":{"source":{"url":"https://g.redditmedia.com/HLzqL8nYBAeZ.gif?fm=mp4&s=5","width":400,"height":300}}}}]}}}
        ]}}
        """

    @Test func aRedditListingGivesEveryAnimatedPostOnce() throws {
        let set = try RedditJSONParser().parse(Self.payload(Self.redditListing, at: "https://www.reddit.com/r/aww/.json"))
        // The post's link is the upload; the preview's files are resizes of it.
        #expect(set.media.map(\.url) == ["https://i.imgur.com/Kq3xZ9a.gif", "https://i.redd.it/3lld01w00qlz.gif"])
        // The post's own .gifv stays one of its files.
        #expect(set.media[0].allURLs.contains("https://i.imgur.com/Kq3xZ9a.gifv"))
        // The preview's GIF and MP4 variants are the second post's renditions; its JPEGs are stills.
        #expect(
            Set(set.media[1].allURLs).isSuperset(of: [
                "https://g.redditmedia.com/HLzqL8nYBAeZ.gif?s=3", "https://g.redditmedia.com/HLzqL8nYBAeZ.gif?fm=mp4&s=5",
            ]))
        #expect(!set.media.flatMap(\.allURLs).contains { $0.contains("fm=jpg") })
        #expect(set.isDefinitive)
    }

    @Test func theGenericReadingOfAListingMergesEachUploadsFiles() async throws {
        // On a host no site parser knows, the text fallback finds every file; their upload
        // identity makes each post one media.
        let url = "https://mirror.example/r/aww.json"
        let media = try await resolvePage(url, [url: ("application/json", Self.redditListing)])
        let redditMedia = media.filter { $0.allURLs.contains { $0.contains("redditmedia.com") } }
        #expect(redditMedia.count == 1)
        #expect(!media.flatMap(\.allURLs).contains { $0.contains("fm=jpg") })
    }

    @Test func aPostsCommentsAreNeverItsMedia() throws {
        let json = """
            [{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"cmw","title":"Show me your tattoos","is_self":true,"selftext":""}}]}},
             {"kind":"Listing","data":{"children":[{"kind":"t1","data":{"body":"mine: https://i.imgur.com/Tt4oO5x.gif","replies":""}}]}}]
            """
        let set = try RedditJSONParser().parse(Self.payload(json, at: "https://www.reddit.com/comments/cmw/.json?raw_json=1"))
        #expect(set.media.isEmpty)
        #expect(set.isDefinitive)
    }

    static func status(_ id: String, text: String, media: String = "", extra: String = "") -> String {
        """
        {"id_str":"\(id)","full_text":"\(text)","entities":{},"user":{"id_str":"9","profile_background_image_url":"http://abs.twimg.com/images/themes/theme2/bg.gif",
          "profile_image_url_https":"https://pbs.twimg.com/profile_images/9/a.gif"},
         "extended_entities":{"media":[\(media)]}\(extra)}
        """
    }

    static let animatedGIF = """
        {"type":"animated_gif","media_url_https":"https://pbs.twimg.com/tweet_video_thumb/CbIhdJ2W8AASWjq.jpg",
         "video_info":{"variants":[{"bitrate":0,"content_type":"video/mp4","url":"https://pbs.twimg.com/tweet_video/CbIhdJ2W8AASWjq.mp4"}]}}
        """
    static let quotedVideo = """
        {"type":"video","video_info":{"variants":[{"bitrate":832000,"content_type":"video/mp4","url":"https://video.twimg.com/ext_tw_video/674686205292883972/pu/vid/720x720/qBKuNdby6miaPlHb.mp4"}]}}
        """

    @Test func aV1StatusGivesItsOwnMediaNotAQuotedTweetsOrItsAuthorsImages() throws {
        let quoted = Self.status("2", text: "theirs", media: Self.quotedVideo)
        let json = Self.status("1", text: "mine", media: Self.animatedGIF, extra: #","quoted_status":\#(quoted)"#)
        let set = try XTweetParser().parse(Self.payload(json, at: "https://api.twitter.com/1.1/statuses/show.json?id=1"))
        #expect(set.media.map(\.url) == ["https://pbs.twimg.com/tweet_video/CbIhdJ2W8AASWjq.mp4"])
        #expect(set.isDefinitive)
    }

    /// The streaming API truncates a long status: `truncated`, a cut `text`, and its media only
    /// under `extended_tweet.extended_entities`.
    @Test func aStreamedStatusGivesTheMediaOfItsExtendedTweet() throws {
        let json = """
            {"id_str":"7","text":"a long status, cut... https://t.co/x","truncated":true,"entities":{"urls":[]},
             "user":{"id_str":"9","profile_image_url_https":"https://pbs.twimg.com/profile_images/9/a.gif"},
             "extended_tweet":{"full_text":"a long status, whole","entities":{"media":[]},
               "extended_entities":{"media":[\(Self.quotedVideo)]}}}
            """
        let set = try XTweetParser().parse(Self.payload(json, at: "https://api.twitter.com/1.1/statuses/show.json?id=7"))
        #expect(set.media.map(\.url) == ["https://video.twimg.com/ext_tw_video/674686205292883972/pu/vid/720x720/qBKuNdby6miaPlHb.mp4"])
        #expect(set.media.first?.title == "a long status, whole")
    }

    @Test func aV1TimelineGivesEachStatusAndARetweetOnce() throws {
        let original = Self.status("1", text: "gif", media: Self.animatedGIF)
        let retweet = Self.status("3", text: "RT", extra: #","retweeted_status":\#(original)"#)
        let photoOnly = Self.status("4", text: "photo", media: #"{"type":"photo","media_url_https":"https://pbs.twimg.com/media/Xy7.jpg"}"#)
        let set = try XTweetParser().parse(Self.payload("[\(original),\(retweet),\(photoOnly)]", at: "https://api.twitter.com/1.1/statuses/home_timeline.json"))
        #expect(set.media.map(\.url) == ["https://pbs.twimg.com/tweet_video/CbIhdJ2W8AASWjq.mp4"])
    }
}
