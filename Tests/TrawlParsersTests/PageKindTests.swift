import Foundation
import Testing
import TrawlCore
import TrawlEngines
import TrawlHTML

@testable import TrawlParsers

/// What a page is, from what it declares of itself: its status, its OpenGraph type and Twitter
/// card, its JSON-LD, and for a JSON answer one item or a list. Each page here is written for
/// the test; the kind reaches every media of the page and `--explain`.
@Suite("Page kind")
struct PageKindTests {
    static let url = "https://pages.example/2026/12/a-page"

    /// The kind every media of `body` carries (resolved as a page at ``url``), and the media.
    static func resolve(_ body: String, type: String = "text/html", status: Int = 200) async throws -> [Media] {
        let environment = Environment(
            transport: RecordedPages(pages: [url: (type, body)]), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
        var media: [Media] = []
        for try await set in SearchProvider(environment: environment, webEngine: WebEngine()).results(for: Request(url)) { media += set.media }
        return media
    }

    static let gif = "https://media.example/uploads/skating-cat.gif"

    @Test(arguments: [
        ("<meta property=\"og:type\" content=\"article\">", PageKind(.article, reason: "og:type article")),
        ("<meta property=\"og:type\" content=\"video.other\">", PageKind(.item, reason: "og:type video.other")),
        ("<meta property=\"og:type\" content=\"profile\">", PageKind(.listing, reason: "og:type profile")),
        ("<meta name=\"twitter:card\" content=\"player\">", PageKind(.item, reason: "twitter:card player")),
        (
            "<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"NewsArticle\",\"headline\":\"Cats\"}</script>",
            PageKind(.article, reason: "JSON-LD newsarticle")
        ),
        (
            "<script type=\"application/ld+json\">{\"@type\":\"CollectionPage\",\"name\":\"Cats\"}</script>",
            PageKind(.listing, reason: "JSON-LD collectionpage")
        ),
        // The page's own metadata outranks its JSON-LD: an article that embeds a video is an article.
        (
            "<meta property=\"og:type\" content=\"article\"><script type=\"application/ld+json\">{\"@type\":\"VideoObject\",\"name\":\"clip\"}</script>",
            PageKind(.article, reason: "og:type article")
        ),
    ])
    func aPageSaysWhatItIs(head: String, kind: PageKind) async throws {
        let media = try await Self.resolve(
            "<html><head>\(head)<meta property=\"og:image\" content=\"\(Self.gif)\"></head><body><p>text</p></body></html>")
        #expect(media.map(\.url) == [Self.gif])
        #expect(media.first?.pageKind == kind)
    }

    @Test func aPageThatDeclaresNothingIsJudgedByWhatItHas() async throws {
        let named = try await Self.resolve("<html><head><meta property=\"og:image\" content=\"\(Self.gif)\"></head><body></body></html>")
        #expect(named.first?.pageKind == PageKind(.item, reason: "declares no kind and names its media"))
        let shown = try await Self.resolve("<html><body><article><img src=\"\(Self.gif)\" width=\"480\" height=\"270\"></article></body></html>")
        #expect(shown.first?.pageKind == PageKind(.article, reason: "declares no kind and shows media in its body"))
    }

    @Test(arguments: [
        ("[{\"id\":1,\"text\":\"a\"},{\"id\":2,\"text\":\"b\"}]", PageKind(.listing, reason: "a JSON list of 2 objects")),
        ("{\"statuses\":[{\"id\":1},{\"id\":2},{\"id\":3}]}", PageKind(.listing, reason: "a JSON answer with 3 statuses")),
        ("{\"data\":{\"children\":[{\"id\":1},{\"id\":2}]}}", PageKind(.listing, reason: "a JSON answer with 2 children")),
        ("{\"id\":1,\"entities\":{\"media\":[{\"id\":1},{\"id\":2}]}}", PageKind(.item, reason: "a JSON answer of one object")),
        // A post's listing, then its comments': the first is what the answer is about.
        (
            "[{\"kind\":\"Listing\",\"data\":{\"children\":[{\"id\":1}]}},{\"kind\":\"Listing\",\"data\":{\"children\":[{\"id\":2},{\"id\":3}]}}]",
            PageKind(.item, reason: "a JSON answer of one object")
        ),
    ])
    func aJSONAnswerIsOneItemOrAList(json: String, kind: PageKind) throws {
        var evidence = PageKindEvidence()
        let url = try #require(URL(string: "https://api.example/v1/things"))
        evidence.read(Payload(body: Data(json.utf8), info: PayloadInfo(url: url, status: 200, contentType: "application/json")))
        #expect(evidence.declared == kind)
    }

    @Test func anErrorPageIsNoItem() {
        var evidence = PageKindEvidence()
        let url = URL(string: Self.url)!
        evidence.read(Payload(body: Data("<html>gone</html>".utf8), info: PayloadInfo(url: url, status: 404, contentType: "text/html")))
        #expect(evidence.declared == PageKind(.none, reason: "HTTP 404"))
    }
}
