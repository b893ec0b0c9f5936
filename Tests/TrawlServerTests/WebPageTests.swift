import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlBrowser
import TrawlCore
import TrawlServer

/// The page at `/`, loaded in real headless Chromium from a live server replaying recordings.
/// The browser's resolver maps every host to the server, and images and video are blocked:
/// nothing the page names leaves the machine.
@Suite("The web page", .serialized)
struct WebPageTests {
    /// The page's DOM once it settled (the grid filled from the streamed results).
    static func renderedPage(_ query: String) async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: BrowserConfiguration.defaultExecutablePath) else {
            Issue.record("Chromium's headless shell is missing at \(BrowserConfiguration.defaultExecutablePath): run `make deps`")
            return ""
        }
        let app = ServerFixture.application(try ServerFixture.replaying())
        return try await app.test(.live) { client in
            let port = try #require(client.port)
            let pool = BrowserPool(configuration: BrowserConfiguration(
                quietWindow: .milliseconds(500), pageBudget: .seconds(15), commandTimeout: .seconds(10), maxPages: 1,
                connectTo: ["::127.0.0.1:\(port)"]))
            defer { Task { await pool.shutdown() } }
            let url = try #require(URL(string: "http://trawl-serve.test/?q=\(encoded(query))"))
            let page = try await pool.render(FetchRequest(url: url))
            #expect(page.status == 200)
            return String(decoding: page.html, as: UTF8.self)
        }
    }

    /// The `data-url` of each tile in the grid.
    static func tiles(_ html: String) -> [String] {
        html.components(separatedBy: "class=\"tile\"").dropFirst().compactMap { tile in
            guard let start = tile.range(of: "data-url=\"") else { return nil }
            return String(tile[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    @Test func aPastedPageURLFillsTheGrid() async throws {
        let html = try await Self.renderedPage(giphyCatPage)
        let tiles = Self.tiles(html)
        #expect(tiles.count == 1, "\(html)")
        let expected: Set = [giphyCatGIF, giphyCatGIF.replacingOccurrences(of: ".gif", with: ".mp4"), giphyCatGIF.replacingOccurrences(of: ".gif", with: ".webp")]
        #expect(tiles.allSatisfy(expected.contains), "\(tiles)")
        #expect(html.contains("data-state=\"done\""))
        // The search is in the box, and no error is shown.
        #expect(html.contains("1 result"))
        #expect(!html.contains("id=\"error\" role=\"alert\" class=\"shown\""))
    }

    @Test func aSearchOffersLoadMore() async throws {
        let html = try await Self.renderedPage("!giphy cats")
        #expect(Self.tiles(html).count >= 3, "\(html)")
        #expect(html.contains("id=\"more\" type=\"button\" class=\"shown\""), "\(html)")
    }

    @Test func aDegradedResultCarriesItsBadge() async throws {
        let html = try await Self.renderedPage("https://giphy.com/gifs/drifting-cat-TrwlDrift9")
        #expect(Self.tiles(html).contains("https://media3.giphy.com/media/v1.Y2lkPXRyYXds/TrwlDrift9/giphy.mp4"), "\(html)")
        #expect(html.contains("class=\"badge\""), "\(html)")
    }

    @Test func anErrorIsShown() async throws {
        let html = try await Self.renderedPage("https://unrecorded.example/page")
        #expect(Self.tiles(html).isEmpty)
        #expect(html.contains("class=\"shown\"") && html.contains("no-recorded-entry"), "\(html)")
    }
}
