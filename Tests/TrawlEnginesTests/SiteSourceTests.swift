import Foundation
import Testing
import TrawlCore
import TrawlHTML

@testable import TrawlEngines
@testable import TrawlParsers

/// A site's answers for these tests: pages and API responses by URL, redirects (short links),
/// and a token endpoint that hands out a new token each time it is asked, as Redgifs' does. A
/// source answers 401 to a token the site no longer takes. Everything else is a 404.
actor SiteServer {
    var pages: [String: (type: String, body: String)] = [:]
    var redirects: [String: String] = [:]
    /// The token URL and the tokens it hands out, in order.
    var tokenURL: String?
    var tokens: [String] = []
    /// Tokens the sources take.
    var accepted: Set<String> = []
    private(set) var tokenRequests = 0
    private(set) var requests: [String] = []

    init(pages: [String: (type: String, body: String)] = [:], redirects: [String: String] = [:]) {
        self.pages = pages
        self.redirects = redirects
    }

    func issueTokens(at url: String, _ tokens: [String], accepted: Set<String>) {
        tokenURL = url
        self.tokens = tokens
        self.accepted = accepted
    }

    func answer(_ request: FetchRequest) -> Payload {
        let asked = request.url.absoluteString
        requests.append(asked)
        if asked == tokenURL {
            tokenRequests += 1
            let token = tokens.isEmpty ? "" : tokens.removeFirst()
            return Payload(body: Data(#"{"token":"\#(token)","addr":"127.0.0.1"}"#.utf8), info: PayloadInfo(url: request.url, contentType: "application/json"))
        }
        var url = request.url
        if let target = redirects[asked].flatMap(URL.init(string:)) { url = target }
        if tokenURL != nil, url.host == "api.redgifs.com" {
            let sent = request.headers["Authorization"]?.replacingOccurrences(of: "Bearer ", with: "")
            guard let sent, accepted.contains(sent) else {
                return Payload(
                    body: Data(#"{"error":{"code":"Unauthorized"}}"#.utf8), info: PayloadInfo(url: url, status: 401, contentType: "application/json"))
            }
        }
        let page = pages[url.absoluteString]
        return Payload(
            body: Data((page?.body ?? "not found").utf8),
            info: PayloadInfo(url: url, requestURL: request.url, status: page == nil ? 404 : 200, contentType: page?.type ?? "text/plain"))
    }
}

struct SiteServerTransport: PayloadTransport {
    let server: SiteServer
    func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        AsyncThrowingStream(running: { continuation in continuation.yield(await server.answer(request)) })
    }
}

/// Every result set of resolving `url` against `server` with one engine (one run).
func resolveSets(_ url: String, server: SiteServer, engine: WebEngine = WebEngine()) async throws -> [ResultSet] {
    let environment = Environment(
        transport: SiteServerTransport(server: server), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
    let provider = SearchProvider(environment: environment, webEngine: engine)
    var sets: [ResultSet] = []
    for try await set in provider.results(for: Request(url)) { sets.append(set) }
    return sets
}

@Suite("Site sources: tokens and redirects")
struct SiteSourceTests {
    static let redgifsItem = """
        {"gif":{"id":"examplecliptrawl","width":1080,"height":1920,"duration":8.4,"hasAudio":false,"tags":["Cat","Skate"],
        "description":"Cat learns to skate","urls":{"hd":"https://media.redgifs.com/ExampleClipTrawl.mp4",
        "sd":"https://media.redgifs.com/ExampleClipTrawl-mobile.mp4","poster":"https://media.redgifs.com/ExampleClipTrawl-poster.jpg",
        "thumbnail":"https://media.redgifs.com/ExampleClipTrawl-mobile.jpg"}},"user":null,"niches":[]}
        """

    /// The token is fetched once per run and sent as a bearer header; a 401 (the token expired)
    /// fetches a new one once and asks again; the next page of the run keeps the new token.
    @Test func redgifsTokenIsFetchedOnceAndRefreshedOn401() async throws {
        let server = SiteServer(pages: ["https://api.redgifs.com/v2/gifs/examplecliptrawl": ("application/json", Self.redgifsItem)])
        await server.issueTokens(at: "https://api.redgifs.com/v2/auth/temporary", ["expired", "fresh", "unused"], accepted: ["fresh"])
        let engine = WebEngine()
        let first = try await resolveSets("https://www.redgifs.com/watch/examplecliptrawl", server: server, engine: engine)
        let media = first.flatMap(\.media)
        #expect(media.map(\.url) == ["https://media.redgifs.com/ExampleClipTrawl.mp4"])
        #expect(media.first?.provenance.parser == "redgifs-api")
        #expect(media.first?.tags == ["Cat", "Skate"])
        #expect(media.first?.width == 1080 && media.first?.height == 1920)
        #expect(media.first?.still == "https://media.redgifs.com/ExampleClipTrawl-poster.jpg")
        #expect(await server.tokenRequests == 2, "one token, one refresh after the 401")
        let second = try await resolveSets("https://thumbs2.redgifs.com/ExampleClipTrawl-mobile.mp4", server: server, engine: engine)
        #expect(second.flatMap(\.media).map(\.url) == ["https://media.redgifs.com/ExampleClipTrawl.mp4"])
        #expect(await server.tokenRequests == 2, "the run's token is kept")
        // The page itself (scripts only) was never fetched: the API answered.
        #expect(await !server.requests.contains { $0.hasPrefix("https://www.redgifs.com/") })
    }

    /// A token endpoint that answers no token: the failure is a note, the page is read.
    @Test func redgifsWithoutATokenReadsThePage() async throws {
        let server = SiteServer(pages: [
            "https://www.redgifs.com/watch/examplecliptrawl": (
                "text/html", #"<html><head><meta property="og:video" content="https://media.redgifs.com/ExampleClipTrawl.mp4"></head></html>"#
            )
        ])
        await server.issueTokens(at: "https://api.redgifs.com/v2/auth/temporary", [], accepted: [])
        let sets = try await resolveSets("https://www.redgifs.com/watch/examplecliptrawl", server: server)
        #expect(sets.flatMap(\.diagnostics).contains { $0.message.contains("redgifs token") })
        #expect(sets.flatMap(\.media).map(\.url) == ["https://media.redgifs.com/ExampleClipTrawl.mp4"])
    }

    /// Which redirects hand a page over to another site's source (a table of pasted → final).
    @Test(
        arguments: [
            // A short link to a post whose JSON is the better source.
            ("https://t.co/AbCdEf", "https://www.reddit.com/r/gifs/comments/4vv0sa/leo/", "https://www.reddit.com/r/gifs/comments/4vv0sa/leo/"),
            ("https://v.redd.it/zv89llsvexdz", "https://www.reddit.com/r/gifs/comments/6s7vt1/x/", "https://www.reddit.com/r/gifs/comments/6s7vt1/x/"),
            ("https://t.co/Xy12", "https://x.com/a/status/880139124791029763", "https://x.com/a/status/880139124791029763"),
            ("https://bit.ly/3redgif", "https://www.redgifs.com/watch/examplecliptrawl", "https://www.redgifs.com/watch/examplecliptrawl"),
            // No redirect; a redirect within the source the pasted URL had already.
            ("https://www.reddit.com/comments/4vv0sa/", "https://www.reddit.com/comments/4vv0sa/", nil),
            ("https://redd.it/4vv0sa", "https://www.reddit.com/comments/4vv0sa/", nil),
            // A page its site's parsers read as it is (no source), and a host no site claims.
            ("https://gph.is/g/abc", "https://giphy.com/gifs/the-office-no-12XMGIWtrHBl5e", nil),
            ("https://tenor.co/bq3Yd.gif", "https://tenor.com/view/cat-gif-1234", nil),
            ("https://t.co/Zz9", "https://blog.example/2026/cat.html", nil),
        ] as [(String, String, String?)])
    func handOver(pasted: String, final: String, expected: String?) throws {
        let target = PageResolution.handOver(from: try #require(URL(string: pasted)), to: try #require(URL(string: final)))
        #expect(target?.absoluteString == expected)
    }

    /// `t.co` → a Streamable page: the page is not read, the Streamable API is.
    @Test func aShortLinkIsReadByTheSiteItLeadsTo() async throws {
        let server = SiteServer(
            pages: [
                "https://api.streamable.com/videos/vkc0y": (
                    "application/json",
                    #"{"status":2,"title":"Duck","files":{"mp4":{"url":"//cdn-b-east.streamable.com/video/mp4/vkc0y.mp4","width":640,"height":800}},"thumbnail_url":"//cdn-b-east.streamable.com/image/vkc0y.jpg"}"#
                ),
                "https://streamable.com/vkc0y": ("text/html", "<html><head><title>Streamable</title></head></html>"),
            ],
            redirects: ["https://t.co/DuckRun": "https://streamable.com/vkc0y"])
        let sets = try await resolveSets("https://t.co/DuckRun", server: server)
        #expect(sets.flatMap(\.media).map(\.url) == ["https://cdn-b-east.streamable.com/video/mp4/vkc0y.mp4"])
        #expect(sets.flatMap(\.media).first?.provenance.parser == "streamable")
        #expect(sets.flatMap(\.diagnostics).contains { $0.message.contains("redirected to") })
    }

    /// `v.redd.it/ID` without its playlist: the short link's redirect to the post hands the page
    /// over to the post's JSON, whose `reddit_video` names the file.
    @Test func vRedditFallsBackToThePostJSON() async throws {
        let post =
            #"[{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"title":"Skating cat","secure_media":{"reddit_video":{"fallback_url":"https://v.redd.it/trwl1cat/DASH_720.mp4?source=fallback","width":720,"height":720,"hls_url":"https://v.redd.it/trwl1cat/HLSPlaylist.m3u8","dash_url":"https://v.redd.it/trwl1cat/DASHPlaylist.mpd"}},"url":"https://v.redd.it/trwl1cat"}}]}},{"kind":"Listing","data":{"children":[]}}]"#
        let server = SiteServer(
            pages: [
                "https://www.reddit.com/comments/abc123/.json?raw_json=1": ("application/json", post),
                "https://www.reddit.com/r/gifs/comments/abc123/skating_cat/": ("text/html", "<html><head><title>reddit</title></head></html>"),
            ],
            redirects: ["https://v.redd.it/trwl1cat": "https://www.reddit.com/r/gifs/comments/abc123/skating_cat/"])
        let sets = try await resolveSets("https://v.redd.it/trwl1cat", server: server)
        let media = sets.flatMap(\.media)
        #expect(media.map(\.url) == ["https://v.redd.it/trwl1cat/DASH_720.mp4?source=fallback"])
        #expect(media.first?.provenance.parser == "reddit-json")
        #expect(media.first?.title == "Skating cat")
        #expect(await server.requests.contains("https://v.redd.it/trwl1cat/DASHPlaylist.mpd"), "the playlist is asked for first")
    }

    /// A dead short link is the page's 404, and a short link to an unknown host is read by the
    /// generic parsers.
    @Test func deadShortLinkAndUnknownTarget() async throws {
        let server = SiteServer(
            pages: [
                "https://blog.example/cat.html": (
                    "text/html", #"<html><head><meta property="og:video" content="https://blog.example/v/cat.mp4"></head></html>"#
                )
            ],
            redirects: ["https://t.co/ToBlog": "https://blog.example/cat.html"])
        await #expect(throws: WebError(url: "https://gph.is/g/dead", status: 404)) {
            _ = try await resolveSets("https://gph.is/g/dead", server: server)
        }
        let sets = try await resolveSets("https://t.co/ToBlog", server: server)
        #expect(sets.flatMap(\.media).map(\.url) == ["https://blog.example/v/cat.mp4"])
        #expect(sets.flatMap(\.media).first?.provenance.parser == "opengraph")
        #expect(!sets.flatMap(\.diagnostics).contains { $0.message.contains("redirected to") })
    }

    /// `!redgifs`: the same token flow as the site (a 401 refreshes it once), paged by number.
    @Test func redgifsSearchUsesTheTokenAndPagesByNumber() async throws {
        let page1 = "https://api.redgifs.com/v2/gifs/search?search_text=skating%20cat&order=trending&count=2"
        let page2 = page1 + "&page=2"
        let item = #"{"id":"ID","width":640,"height":360,"urls":{"hd":"https://media.redgifs.com/ID.mp4","sd":"https://media.redgifs.com/ID-mobile.mp4"}}"#
        func answer(_ ids: [String], page: Int) -> String {
            #"{"page":\#(page),"pages":2,"total":4,"gifs":[\#(ids.map { item.replacingOccurrences(of: "ID", with: $0) }.joined(separator: ","))]}"#
        }
        let server = SiteServer(pages: [page1: ("application/json", answer(["A", "B"], page: 1)), page2: ("application/json", answer(["C", "D"], page: 2))])
        await server.issueTokens(at: "https://api.redgifs.com/v2/auth/temporary", ["expired", "fresh"], accepted: ["fresh"])
        let environment = Environment(
            transport: SiteServerTransport(server: server), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
        let provider = SearchProvider(environment: environment, webEngine: WebEngine(), engines: [RedgifsSearchEngine()])
        var first: [ResultSet] = []
        for try await set in provider.results(for: Request("!redgifs skating cat limit:2")) { first.append(set) }
        #expect(first.flatMap(\.media).map(\.url) == ["https://media.redgifs.com/A.mp4", "https://media.redgifs.com/B.mp4"])
        #expect(first.last?.next == .offset(2))
        var second: [ResultSet] = []
        for try await set in provider.results(for: Request("!redgifs skating cat limit:2", pagination: .offset(2))) { second.append(set) }
        #expect(second.flatMap(\.media).map(\.url) == ["https://media.redgifs.com/C.mp4", "https://media.redgifs.com/D.mp4"])
        #expect(second.last?.next == nil)
        #expect(await server.tokenRequests == 2)
        await #expect(throws: SearchError.self) {
            for try await _ in provider.results(for: Request("!redgifs cats order:random")) {}
        }
    }

    /// A login wall: nothing public is an error with its own code.
    @Test func instagramLoginWallIsNotPublic() async throws {
        let login = #"<html><head><title>Login • Instagram</title></head><body><form action="/accounts/login/"></form></body></html>"#
        let server = SiteServer(pages: [
            "https://www.instagram.com/p/BUm3cvEhFMt/embed/captioned/": ("text/html", login),
            "https://www.instagram.com/p/BUm3cvEhFMt/": ("text/html", login),
        ])
        do {
            _ = try await resolveSets("https://www.instagram.com/p/BUm3cvEhFMt/", server: server)
            Issue.record("a login wall resolved without an error")
        } catch let error as NotPublicError {
            #expect(error.errorCode == "not-public")
            #expect(error.description.contains("instagram.com/p/BUm3cvEhFMt"))
        }
        // The post redirecting to the login form (its embed gone): the same error.
        let redirecting = SiteServer(
            pages: ["https://www.instagram.com/accounts/login/?next=/p/BUm3cvEhFMt/": ("text/html", login)],
            redirects: ["https://www.instagram.com/p/BUm3cvEhFMt/": "https://www.instagram.com/accounts/login/?next=/p/BUm3cvEhFMt/"])
        await #expect(throws: NotPublicError.self) {
            _ = try await resolveSets("https://www.instagram.com/p/BUm3cvEhFMt/", server: redirecting)
        }
    }
}
