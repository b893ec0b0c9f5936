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
        ("https://knowyourmeme.com/photos/572078-how-to-draw-an-owl", "knowyourmeme"), ("https://i.kym-cdn.com/photos/images/original/0/1/2/a.gif", "knowyourmeme"),
        ("https://www.instagram.com/p/BUm3cvEhFMt/", "instagram"), ("https://www.facebook.com/watch/?v=1", "facebook"), ("https://fb.watch/abc/", "facebook"),
        ("https://v.redd.it/zv89llsvexdz", "reddit"), ("https://preview.redd.it/a.gif?width=640", "reddit"), ("https://tenor.co/bq3Yd.gif", "tenor"),
        ("https://media.tenor.com/x/a.gif", "tenor"), ("https://t.co/AbCdEf", nil), ("https://gifdeliverynetwork.com/a", nil),
        ("https://9gag.com/gag/abY5Mm9", nil), ("https://notgiphy.com/gifs/x", nil), ("https://example.com/imgur.com", nil),
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
        #expect(RedditSite().rewrite(URL(string: "https://www.reddit.com/r/gifs/comments/4vv0sa/leo/")!).map(\.absoluteString)
            == ["https://www.reddit.com/comments/4vv0sa/.json?raw_json=1"])
        #expect(RedditSite().rewrite(URL(string: "https://www.reddit.com/gallery/huw6vs")!).first?.path == "/comments/huw6vs/.json")
        #expect(RedditSite().rewrite(URL(string: "https://www.reddit.com/comments/k5rsq3/.json")!).isEmpty)
        #expect(ImgurSite().rewrite(URL(string: "https://i.imgur.com/Qcx1DSD.gifv")!).map(\.absoluteString) == ["https://imgur.com/Qcx1DSD", "https://i.imgur.com/Qcx1DSD.mp4"])
        #expect(ImgurSite().rewrite(URL(string: "https://i.imgur.com/Qcx1DSD.gif")!).map(\.absoluteString) == ["https://imgur.com/Qcx1DSD"])
        #expect(ImgurSite().rewrite(URL(string: "https://i.imgur.com/Qcx1DSD.jpg")!).isEmpty)
        let tweet = XSite().rewrite(URL(string: "https://x.com/Kikobeats/status/880139124791029763?s=20")!).first
        #expect(tweet?.host == "cdn.syndication.twimg.com")
        #expect(tweet?.query?.contains("id=880139124791029763") == true)
        #expect(XSite.token("880139124791029763").allSatisfy { $0.isLetter || $0.isNumber })
        #expect(XSite().rewrite(URL(string: "https://x.com/Kikobeats")!).isEmpty)
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
