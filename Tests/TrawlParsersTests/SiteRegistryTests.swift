import Foundation
import Testing
import TrawlCore

@testable import TrawlParsers

@Suite("Site registry")
struct SiteRegistryTests {
    /// URLs people paste, and the site that must claim each (nil: no site, generic parsers).
    static let urls: [(String, String?)] = [
        ("https://giphy.com/gifs/the-office-no-steve-carell-12XMGIWtrHBl5e", "giphy"), ("https://media1.giphy.com/media/x/giphy.gif", "giphy"),
        ("https://api.giphy.com/v1/gifs/search?q=x", "giphy"), ("https://gph.is/g/abc", "giphy"),
        ("https://tenor.com/view/x-gif-1", "tenor"), ("https://tenor.googleapis.com/v2/search?q=x", "tenor"),
        ("https://imgur.com/gallery/Sdc0Klc", "imgur"), ("https://i.imgur.com/Qcx1DSD.gifv", "imgur"),
        ("https://www.reddit.com/r/gifs/comments/4vv0sa/x/", "reddit"), ("https://old.reddit.com/comments/abc", "reddit"), ("https://redd.it/abc", "reddit"),
        ("https://x.com/a/status/1", "x"), ("https://twitter.com/a/status/1", "x"), ("https://cdn.syndication.twimg.com/tweet-result?id=1", "x"),
        ("https://he-who-photographs-rather-ok.tumblr.com/post/165326273724", "tumblr"), ("https://api.tumblr.com/v2/blog/x/posts", "tumblr"),
        ("https://www.redgifs.com/watch/squeakyhelplesswisent", "redgifs"), ("https://thumbs2.redgifs.com/A-mobile.mp4", "redgifs"),
        ("https://api.redgifs.com/v2/gifs/a", "redgifs"), ("https://streamable.com/dnd1", "streamable"), ("https://coub.com/view/5u5n1", "coub"),
        ("https://imgflip.com/gif/2d3al6", "imgflip"), ("https://i.imgflip.com/2d3al6.mp4", "imgflip"),
        ("https://knowyourmeme.com/photos/572078-how-to-draw-an-owl", "knowyourmeme"),
        ("https://i.kym-cdn.com/photos/images/original/0/1/2/a.gif", "knowyourmeme"),
        ("https://www.instagram.com/p/BUm3cvEhFMt/", "instagram"), ("https://www.facebook.com/watch/?v=1", "facebook"), ("https://fb.watch/abc/", "facebook"),
        ("https://v.redd.it/zv89llsvexdz", "reddit"), ("https://preview.redd.it/a.gif?width=640", "reddit"), ("https://tenor.co/bq3Yd.gif", "tenor"),
        ("https://media.tenor.com/x/a.gif", "tenor"), ("https://t.co/AbCdEf", nil), ("https://gifdeliverynetwork.com/a", nil),
        ("https://9gag.com/gag/abY5Mm9", nil), ("https://notgiphy.com/gifs/x", nil), ("https://example.com/imgur.com", nil),
        // The fediverse, claimed by shape on any host no site lists.
        ("https://mastodon.social/@Gargron/109391432396542043", "fediverse"), ("https://fosstodon.org/users/alice/statuses/1", "fediverse"),
        ("https://akko.example/notice/AcJ2Lz1Kf5TGq3ZKxE", "fediverse"), ("https://misskey.io/notes/9l8rj1p0cd", "fediverse"),
        ("https://mastodon.social/api/v1/statuses/109391432396542043", "fediverse"),
        ("https://gts.example/@tobi/statuses/01F8MH1H7YV1Z7D2C8K2730QBF", "fediverse"), ("https://news.example/@desk/statuses/latest", nil),
        // …but never a listed site's URL of the same shape, nor paths that only look alike.
        ("https://x.com/@jack/20", "x"), ("https://www.tumblr.com/@staff/123", "tumblr"), ("https://www.threads.net/@zuck/123", "threads"),
        ("https://www.tiktok.com/@scout2015/6718335390845095173", "tiktok"), ("https://bsky.app/@a/1", "bluesky"),
        ("https://medium.com/@user/123", nil), ("https://medium.com/@ckirchoff/on-behalf-of-literally-429fab868ca8", nil),
        ("https://www.youtube.com/@channel/123", nil), ("https://news.example/@desk/story-123", nil), ("https://blog.example/notes/2024", nil),
        ("https://blog.example/notes/my-trip", nil), ("https://city.example/notice/parking", nil), ("https://mastodon.social/@Gargron", nil),
        ("https://api.twitter.com/1.1/statuses/show.json?id=397", "x"), ("https://api.example/1.1/statuses/show.json?id=397", nil),
        ("https://bsky.app/profile/bsky.app/post/3l6oveex3ii2l", "bluesky"), ("https://public.api.bsky.app/xrpc/app.bsky.feed.getPostThread", "bluesky"),
        ("https://www.threads.net/@zuck/post/CuP48CiS5sx", "threads"), ("https://www.threads.com/@zuck/post/CuP48CiS5sx", "threads"),
        ("https://www.tiktok.com/@scout2015/video/6718335390845095173", "tiktok"), ("https://vm.tiktok.com/ZMeAbCdEf/", "tiktok"),
        ("https://www.pinterest.com/pin/99360735500167749/", "pinterest"), ("https://uk.pinterest.com/pin/1/", "pinterest"),
        ("https://www.pinterest.co.uk/pin/1/", "pinterest"), ("https://pin.it/4ZbTXsd", "pinterest"),
    ]

    @Test func sitesAreSortedAndNamedUniquely() {
        let names = Sites.all.map(\.name)
        #expect(names == names.sorted())
        #expect(Set(names).count == names.count)
    }

    @Test func noURLIsClaimedByTwoSites() throws {
        for (text, expected) in Self.urls {
            let url = try #require(URL(string: text))
            let claimants = Sites.all.filter { $0.claims(url) }.map(\.name)
            #expect(claimants.count <= 1, "\(text) is claimed by \(claimants)")
            #expect(claimants.first == expected, "\(text)")
        }
        // No host is listed by two sites, nor under another site's host.
        let hosts = Sites.all.flatMap { site in site.hosts.map { (site.name, $0) } }
        for (a, hostA) in hosts {
            for (b, hostB) in hosts where a != b {
                #expect(hostA != hostB && !hostA.hasSuffix("." + hostB), "\(a) \(hostA) overlaps \(b) \(hostB)")
            }
        }
    }

    @Test func rewrites() throws {
        #expect(
            RedditSite().rewrite(URL(string: "https://www.reddit.com/r/gifs/comments/4vv0sa/leo/")!).map(\.absoluteString)
                == ["https://www.reddit.com/comments/4vv0sa/.json?raw_json=1"])
        #expect(RedditSite().rewrite(URL(string: "https://www.reddit.com/gallery/huw6vs")!).first?.path == "/comments/huw6vs/.json")
        #expect(RedditSite().rewrite(URL(string: "https://www.reddit.com/comments/k5rsq3/.json")!).isEmpty)
        #expect(
            ImgurSite().rewrite(URL(string: "https://i.imgur.com/Qcx1DSD.gifv")!).map(\.absoluteString) == [
                "https://imgur.com/Qcx1DSD", "https://i.imgur.com/Qcx1DSD.mp4",
            ])
        #expect(ImgurSite().rewrite(URL(string: "https://i.imgur.com/Qcx1DSD.gif")!).map(\.absoluteString) == ["https://imgur.com/Qcx1DSD"])
        #expect(ImgurSite().rewrite(URL(string: "https://i.imgur.com/Qcx1DSD.jpg")!).isEmpty)
        let tweet = XSite().rewrite(URL(string: "https://x.com/Kikobeats/status/880139124791029763?s=20")!).first
        #expect(tweet?.host == "cdn.syndication.twimg.com")
        #expect(tweet?.query?.contains("id=880139124791029763") == true)
        #expect(XSite.token("880139124791029763").allSatisfy { $0.isLetter || $0.isNumber })
        #expect(XSite().rewrite(URL(string: "https://x.com/Kikobeats")!).isEmpty)
        func rewritten(_ site: some Site, _ url: String) -> [String] { site.rewrite(URL(string: url)!).map(\.absoluteString) }
        #expect(
            rewritten(FediverseSite(), "https://mastodon.social/@Gargron/109391432396542043?x=1")
                == ["https://mastodon.social/api/v1/statuses/109391432396542043"])
        #expect(rewritten(FediverseSite(), "https://fosstodon.org/users/alice/statuses/112") == ["https://fosstodon.org/api/v1/statuses/112"])
        #expect(rewritten(FediverseSite(), "http://localhost:3000/notice/AcJ2Lz1Kf5TGq3ZKxE") == ["http://localhost:3000/api/v1/statuses/AcJ2Lz1Kf5TGq3ZKxE"])
        #expect(rewritten(FediverseSite(), "https://mastodon.social/api/v1/statuses/1").isEmpty, "the API URL is read as it is")
        let note = try #require(FediverseSite().sources(for: URL(string: "https://misskey.io/notes/9l8rj1p0cd")!).first)
        #expect(note.method == "POST" && note.url.absoluteString == "https://misskey.io/api/notes/show")
        #expect(note.body.flatMap { String(data: $0, encoding: .utf8) } == #"{"noteId":"9l8rj1p0cd"}"#)
        #expect(
            rewritten(BlueskySite(), "https://bsky.app/profile/bsky.app/post/3l6oveex3ii2l")
                == ["https://public.api.bsky.app/xrpc/app.bsky.feed.getPostThread?uri=at://bsky.app/app.bsky.feed.post/3l6oveex3ii2l&depth=0&parentHeight=0"])
        #expect(rewritten(BlueskySite(), "https://bsky.app/profile/bsky.app").isEmpty)
        #expect(TikTokSite.videoID(URL(string: "https://www.tiktok.com/@scout2015/video/6718335390845095173?lang=en")!) == "6718335390845095173")
        #expect(PinterestSite.pinID(URL(string: "https://www.pinterest.com/pin/cat-gif--99360735500167749/")!) == "99360735500167749")
        #expect(ThreadsSite.code(URL(string: "https://www.threads.net/@zuck/post/CuP48CiS5sx")!) == "CuP48CiS5sx")
        #expect(ThreadsSite.code(URL(string: "https://www.threads.net/t/CuP48CiS5sx")!) == "CuP48CiS5sx")
        #expect(
            rewritten(FediverseSite(), "https://gts.example/@tobi/statuses/01F8MH1H7YV1Z7D2C8K2730QBF")
                == ["https://gts.example/api/v1/statuses/01F8MH1H7YV1Z7D2C8K2730QBF"])
    }

    @Test func primaryRule() throws {
        let payload = Payload(body: Data(), info: PayloadInfo(url: URL(string: "https://giphy.com/gifs/x")!))
        var files = SiteMedia()
        files.add("https://m.example/small.gif", name: "fixed_height", width: 267, height: 200)
        files.add("https://m.example/orig.gif", name: "original", width: 240, height: 196)
        files.add("https://m.example/orig.mp4", name: "original", width: 480, height: 392)
        files.addStill("https://m.example/still.jpg", width: 480, height: 392)
        let media = try #require(files.media(parser: "t", payload: payload))
        #expect(media.url == "https://m.example/orig.gif", "the site's original GIF wins over a larger copy and over mp4")
        #expect(media.still == "https://m.example/still.jpg")
        #expect(media.renditions.map(\.url) == ["https://m.example/small.gif", "https://m.example/orig.mp4"])

        var videos = SiteMedia()
        videos.add("https://v.example/low.mp4", mimeType: "video/mp4", width: 640, height: 360, bitrate: 832_000)
        videos.add("https://v.example/high.mp4", mimeType: "video/mp4", width: 640, height: 360, bitrate: 2_176_000)
        #expect(videos.media(parser: "t", payload: payload)?.url == "https://v.example/high.mp4")
    }
}
