import Foundation
import Testing
import TrawlCore
import TrawlHTML

@testable import TrawlParsers

func documentPayload(_ html: String, url: String = "https://site.example/post/1") throws -> Payload {
    let info = PayloadInfo(url: URL(string: url)!, contentType: "text/html")
    let scanned = try HTMLScanner().scan(Data(html.utf8), url: url)
    return Payload(body: Data(html.utf8), info: info, document: scanned.summary)
}

@Suite("Generic parsers")
struct GenericParserTests {
    @Test func openGraphAttachesTheStillToTheVideo() throws {
        let payload = try documentPayload(
            """
            <meta property="og:title" content="Cat">
            <meta property="og:image" content="https://m.example/still.jpg">
            <meta property="og:video" content="http://m.example/cat.mp4">
            <meta property="og:video:secure_url" content="https://m.example/cat.mp4">
            <meta property="og:video:type" content="video/mp4">
            <meta property="og:video:width" content="480"><meta property="og:video:height" content="270">
            <meta property="og:video" content="https://m.example/player.html"><meta property="og:video:type" content="text/html">
            """)
        let media = try OpenGraphParser().parse(payload).media
        #expect(media.count == 1)
        #expect(media.first?.url == "https://m.example/cat.mp4")
        #expect(media.first?.still == "https://m.example/still.jpg")
        #expect(media.first?.width == 480 && media.first?.height == 270)
        #expect(media.first?.title == "Cat")
    }

    @Test func twitterPlayerStream() throws {
        let payload = try documentPayload(
            """
            <meta name="twitter:player:stream" content="https://i.example/a.mp4">
            <meta name="twitter:player:width" content="400"><meta name="twitter:image" content="https://i.example/a.jpg">
            """)
        let media = try TwitterCardParser().parse(payload).media
        #expect(media.map(\.url) == ["https://i.example/a.mp4"])
        #expect(media.first?.still == "https://i.example/a.jpg")
    }

    @Test func jsonLDGraphAndQuantitativeValues() throws {
        let json = """
            {"@context":"https://schema.org","@graph":[{"@type":"WebPage"},
             {"@type":["VideoObject"],"name":"Clip","contentUrl":"/v/clip.mp4","thumbnailUrl":["/v/clip.jpg"],
              "width":{"@type":"QuantitativeValue","value":640},"height":"360 px"},
             {"@type":"Article","image":{"@type":"ImageObject","url":"https://m.example/article.gif"}}]}
            """
        let info = PayloadInfo(
            url: URL(string: "https://site.example/p")!, contentType: "application/json", origin: .embedded(.init(kind: .linkedData, scriptIndex: 0)))
        let media = try JSONLDParser().parse(Payload(body: Data(json.utf8), info: info)).media
        #expect(media.map(\.url) == ["https://site.example/v/clip.mp4", "https://m.example/article.gif"])
        #expect(media.first?.width == 640 && media.first?.height == 360)
        #expect(media.first?.still == "https://site.example/v/clip.jpg")
    }

    @Test func jsonLDThatIsNotJSONThrowsNamingTheURL() {
        let info = PayloadInfo(url: URL(string: "https://site.example/p")!, contentType: "application/ld+json")
        #expect { try JSONLDParser().parse(Payload(body: Data("{oops".utf8), info: info)) } throws: { error in
            (error as? ParseError)?.url == "https://site.example/p"
        }
    }

    @Test func oEmbedPhotoAndRichNegative() throws {
        let info = PayloadInfo(url: URL(string: "https://site.example/oembed?url=x")!, contentType: "application/json", origin: .followUp(reason: "oembed"))
        let photo = #"{"version":"1.0","type":"photo","url":"https://m.example/a.gif","width":200,"height":100,"title":"A"}"#
        #expect(try OEmbedParser().parse(Payload(body: Data(photo.utf8), info: info)).media.first?.width == 200)
        let rich = #"{"version":"1.0","type":"rich","html":"<iframe src='https://x.example/embed'></iframe>"}"#
        #expect(try OEmbedParser().parse(Payload(body: Data(rich.utf8), info: info)).media.isEmpty)
    }

    @Test func html5SkipsBlobsAndPixels() throws {
        let payload = try documentPayload(
            """
            <video poster="/p.jpg"><source src="blob:https://site.example/abc"></video>
            <img src="/pixel.gif" width="1" height="1"><img src="/spacer.gif"><img src="/real.gif" width="300">
            """)
        let media = try HTML5MediaParser().parse(payload).media
        #expect(media.map(\.url) == ["https://site.example/real.gif"])
    }
}

@Suite("Text fallback")
struct RegexFallbackTests {
    func scan(_ text: String) -> [String] {
        Array(text.utf8).withUnsafeBufferPointer { RegexFallbackParser.scan($0, limit: 100) }
    }

    @Test func findsEscapedAndPlainURLs() {
        let text = #"""
            {"a":"https:\/\/media.example\/x\/giphy.gif?cid=1\u0026rid=2","b":"//i.imgur.com/abc.gifv"}
            <img src="https://media.giphy.com/y.webp"> <img src="https://m.example/thumb.webp"> <a href="https://m.example/page.html">no</a>
            &quot;https://m.example/z.mp4&quot; https://v.redd.it/abcdef/DASH_720.mp4 https://v.redd.it/ghijkl https://m.example/still.jpg
            url(https://m.example/bg.webm) https://m.example/q.mp4.
            """#
        #expect(
            scan(text) == [
                "https://media.example/x/giphy.gif?cid=1&rid=2", "https://i.imgur.com/abc.gifv", "https://media.giphy.com/y.webp",
                "https://m.example/z.mp4", "https://v.redd.it/abcdef/DASH_720.mp4", "https://m.example/bg.webm", "https://m.example/q.mp4",
            ])
    }

    @Test func aGifvIsItsMP4WithTheGifvBeside() throws {
        let info = PayloadInfo(url: URL(string: "https://forum.example/t/1")!, contentType: "text/html")
        let set = try RegexFallbackParser().parse(Payload(body: Data(#"<p>look https://i.imgur.com/Kq3xZ9a.gifv</p>"#.utf8), info: info))
        #expect(set.media.map(\.url) == ["https://i.imgur.com/Kq3xZ9a.mp4"])
        #expect(set.media.first?.renditions.map(\.url) == ["https://i.imgur.com/Kq3xZ9a.gifv"])
    }

    @Test func aJSONDocumentIsLeftToItsStructure() throws {
        // The structure reader keeps a user's profile images out; the text scan would not.
        let json = #"{"id":"1","user":{"profile_background_image_url":"http://abs.twimg.com/images/themes/theme2/bg.gif"}}"#
        let info = PayloadInfo(url: URL(string: "https://api.example/status/1.json")!, contentType: "application/json")
        #expect(try RegexFallbackParser().parse(Payload(body: Data(json.utf8), info: info)).media.isEmpty)
        // JSON that does not parse is text like any other.
        let broken = Payload(body: Data(#"{"a":"https://m.example/x.gif""#.utf8), info: info)
        #expect(try RegexFallbackParser().parse(broken).media.map(\.url) == ["https://m.example/x.gif"])
    }

    /// The byte pre-check may only skip URLs the full check rejects too.
    @Test(arguments: [
        ("https://m.example/a.GIF", true), ("https://m.example/a.gif.", true), ("https://m.example/a.mp4?x=1#y", true),
        ("https://V.REDD.IT/abc/DASH_480", true), ("https://v.redd.it/abc", false), (#"https:\/\/m.example\/a.webm"#, true), ("https://m.example/a.gifv", true),
        ("https://m.example/a.apng,", true), ("//i.imgur.com/x/y.webp", true), ("https://m.example/still-thumb.webp", false),
        ("https://video.twimg.com/tweet_video/x", true),
        ("https://m.example/a.MOV;", true), ("https://m.example:8080/a.m4v", true),
        ("https://m.example/a.jpg", false), ("https://m.example/page", false), ("https://m.example/a.gif/", false),
        ("https://m.example/?f=a.gif", false),
    ])
    func preCheckNeverSkipsMedia(_ url: String, isMedia: Bool) {
        let bytes = Array(url.utf8)
        // The host starts after "//", or after its JSON-escaped form.
        let marker = url.range(of: #"\/\/"#) ?? url.range(of: "//")!
        let hostStart = url.utf8.distance(from: url.startIndex, to: marker.upperBound)
        let mayBe = bytes.withUnsafeBufferPointer { RegexFallbackParser.mayBeMedia($0, hostStart: hostStart, end: $0.count) }
        #expect((RegexFallbackParser.mediaURL(url) != nil) == isMedia)
        if isMedia { #expect(mayBe, "pre-check rejected \(url)") }
    }

    @Test func thirtyMegabyteSingleLine() {
        // One line of 30 MB: URL-ish noise with few matches; one pass must get through it.
        var line = [UInt8]()
        line.reserveCapacity(30 << 20)
        let chunk = Array(#"x:/ http: "//" https://a.example/path/without/media?q=1 \/\/ "#.utf8)
        while line.count < 30 << 20 { line += chunk }
        line += Array("https://m.example/end.gif".utf8)
        let found = line.withUnsafeBufferPointer { RegexFallbackParser.scan($0, limit: 10) }
        #expect(found == ["https://m.example/end.gif"])
    }
}
