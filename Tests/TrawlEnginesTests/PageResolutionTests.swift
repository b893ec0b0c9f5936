import Foundation
import Testing
import TrawlCore
import TrawlHTML
import TrawlParsers

@testable import TrawlEngines

/// The resolve path's rules without its IO: payloads (scanned as the engine would) go into a
/// ``PageResolution`` step by step, and each step's result sets and decisions are checked.
@Suite("Page resolution steps")
struct PageResolutionTests {
    static let url = URL(string: "https://news.example/2026/11/cat-learns-to-skate-Qm81xZ")!

    /// The payloads the engine would read for `html` served with `status`.
    static func payloads(_ html: String, status: Int = 200) async throws -> [Payload] {
        struct Page: PayloadTransport {
            var html: String, status: Int
            func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
                let payload = Payload(body: Data(html.utf8), info: PayloadInfo(url: request.url, status: status, contentType: "text/html"))
                return AsyncThrowingStream {
                    $0.yield(payload); $0.finish()
                }
            }
        }
        let environment = Environment(transport: Page(html: html, status: status), scanner: HTMLScanner(), parsers: GenericParsers.chain())
        var payloads: [Payload] = []
        for try await payload in environment.payloads(for: FetchRequest(url: url), from: Request(url.absoluteString)) { payloads.append(payload) }
        return payloads
    }

    static func resolution() -> PageResolution {
        PageResolution(url: url, request: Request(url.absoluteString), parsers: GenericParsers.chain(siteParsers: Sites.parsers), maxFollowUps: 2)
    }

    static func urls(_ sets: [ResultSet]) -> [String] { sets.flatMap(\.media).map(\.url) }

    enum Decided: Equatable { case none, notNeeded, ask }

    static func decided(_ decision: PageResolution.RenderDecision) -> Decided {
        switch decision {
        case .none: .none
        case .notNeeded: .notNeeded
        case .ask: .ask
        }
    }

    static let named = """
        <html><head><meta property="og:video" content="https://cdn.news.example/v/skate.mp4"></head>
        <body><article><img src="https://cdn.news.example/u/other.gif" width="400" height="300"></article></body></html>
        """
    static let shownOnly = #"<html><body><article><img src="https://cdn.news.example/u/skate.gif" width="400" height="300"></article></body></html>"#
    static let scriptDriven = #"<html><head><title>App</title></head><body><div id="root"></div><script src="/bundle.js"></script></body></html>"#
    static let stateOnly = """
        <html><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">
        {"props":{"pageProps":{"clip":{"gif":"https://cdn.news.example/c/preview.gif","mp4":"https://cdn.news.example/c/720.mp4"}}}}</script></body></html>
        """

    /// One row: a page, whether a renderer is there, and what each step gives.
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var html: String
        var status = 200
        var canRender = true
        var afterRead: [String]
        var decision: Decided
        var afterDecision: [String] = []
        var afterPage: [String] = []
        var afterFinish: [String] = []
        var fails = false
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a named item goes out at once, alone", html: named, afterRead: ["https://cdn.news.example/v/skate.mp4"], decision: .notNeeded),
        Row(
            name: "what a page only shows waits, and answers after the page", html: shownOnly, afterRead: [], decision: .notNeeded,
            afterPage: ["https://cdn.news.example/u/skate.gif"]),
        Row(name: "nothing static: the renderer is asked", html: scriptDriven, afterRead: [], decision: .ask),
        Row(
            name: "a state object's items answer before any render", html: stateOnly, afterRead: [], decision: .notNeeded,
            afterDecision: ["https://cdn.news.example/c/preview.gif"]),
        Row(
            name: "without a renderer the state waits for the fallback", html: stateOnly, canRender: false, afterRead: [], decision: .none,
            afterFinish: ["https://cdn.news.example/c/preview.gif"]),
        Row(name: "an HTTP error with nothing found fails", html: "<html><body>gone</body></html>", status: 404, afterRead: [], decision: .none, fails: true),
        Row(
            name: "an HTTP error page's media still count", html: named, status: 410, afterRead: ["https://cdn.news.example/v/skate.mp4"], decision: .notNeeded),
    ]

    @Test(arguments: rows)
    func steps(_ row: Row) async throws {
        var page = Self.resolution()
        for payload in try await Self.payloads(row.html, status: row.status) { page.read(payload) }
        #expect(Self.urls(page.take()) == row.afterRead, "read")
        #expect(Self.decided(page.renderDecision(canRender: row.canRender)) == row.decision, "decision")
        #expect(Self.urls(page.take()) == row.afterDecision, "decision's sets")
        #expect(page.afterPage().isEmpty)
        #expect(Self.urls(page.take()) == row.afterPage, "after the page")
        let failure = page.finish()
        #expect(Self.urls(page.take()) == row.afterFinish, "fallback")
        #expect((failure != nil) == row.fails)
    }

    /// The start of a large document as the environment hands it on: its kept bytes and what
    /// the scan read of them (here, all of the small page).
    static func start(of payloads: [Payload]) throws -> Payload {
        var start = try #require(payloads.first { $0.info.origin == .document })
        start.isDocumentStart = true
        return start
    }

    @Test func aLargeDocumentsStartSendsWhatItsMetaTagsNameAndNothingTwice() async throws {
        var page = Self.resolution()
        let payloads = try await Self.payloads(Self.named)
        page.readStart(try Self.start(of: payloads))
        // Named by the head: out at once. Shown by the body: not yet, and not from the start.
        #expect(Self.urls(page.take()) == ["https://cdn.news.example/v/skate.mp4"])
        for payload in payloads { page.read(payload) }
        #expect(Self.urls(page.take()).isEmpty)
        #expect(Self.decided(page.renderDecision(canRender: true)) == .notNeeded)
        #expect(page.afterPage().isEmpty)
        _ = page.finish()
        #expect(Self.urls(page.take()).isEmpty)
    }

    @Test func aStartThatNamesNothingSendsNothingAndWhatItShowsWaits() async throws {
        var page = Self.resolution()
        let payloads = try await Self.payloads(Self.shownOnly)
        page.readStart(try Self.start(of: payloads))
        #expect(page.take().isEmpty)
        for payload in payloads { page.read(payload) }
        #expect(Self.urls(page.take()).isEmpty)
        _ = page.renderDecision(canRender: false)
        #expect(page.afterPage().isEmpty)
        #expect(Self.urls(page.take()) == ["https://cdn.news.example/u/skate.gif"])
    }

    @Test func aSiteSourceThatAnswersEndsTheResolution() async throws {
        var page = Self.resolution()
        let json =
            #"[{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"q1","title":"Words","is_self":true}}]}},{"kind":"Listing","data":{"children":[]}}]"#
        let info = PayloadInfo(url: URL(string: "https://www.reddit.com/comments/q1/.json?raw_json=1")!, contentType: "application/json")
        page.readSiteSource(Payload(body: Data(json.utf8), info: info), site: "reddit")
        #expect(page.take().flatMap(\.media).isEmpty)
        // A text post: the site said there is nothing, so the page is not read.
        #expect(page.siteSourceAnswered)
    }

    @Test func explainingRecordsWhatWasDroppedOnce() async throws {
        var request = Request(Self.url.absoluteString)
        request.explain = true
        var page = PageResolution(url: Self.url, request: request, parsers: GenericParsers.chain(), maxFollowUps: 0)
        let html = #"<html><body><img src="https://cdn.news.example/ui/expand.gif"><img src="https://cdn.news.example/ui/expand.gif"></body></html>"#
        for payload in try await Self.payloads(html) { page.read(payload) }
        _ = page.renderDecision(canRender: false)
        _ = page.afterPage()
        _ = page.finish()
        let dropped = page.take().flatMap { $0.dropped ?? [] }
        #expect(dropped.map(\.url) == ["https://cdn.news.example/ui/expand.gif"])
        #expect(dropped.first?.explanation?.verdict == .dropped)
    }
}
