import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlBrowser
import TrawlCore
import TrawlServer
import TrawlTesting

/// The page at `/`, loaded in real headless Chromium from a live server replaying recordings.
/// The browser's resolver maps every host to the server, and images and video are blocked:
/// nothing the page names leaves the machine.
///
/// One test, one browser, four pages: the browser tests elsewhere count this process's
/// children, so a browser of this suite lives as briefly as it can.
@Suite("The web page", .timeLimit(.minutes(5)), .tags(.browser))
struct WebPageTests {
    /// The `data-url` of each tile in the grid.
    static func tiles(_ html: String) -> [String] {
        html.components(separatedBy: "class=\"tile\"").dropFirst().compactMap { tile in
            guard let start = tile.range(of: "data-url=\"") else { return nil }
            return String(tile[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    @Test func theGridFillsFromTheStreamedResults() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: BrowserConfiguration.defaultExecutablePath),
            "Chromium's headless shell is missing at \(BrowserConfiguration.defaultExecutablePath): run `make deps`")
        let app = ServerFixture.application(try ServerFixture.replaying { $0.limits.publicHosts = ["trawl-serve.test"] })
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // The page settles only once its resolve stream has ended, however long a loaded
            // machine takes: no request of it counts as stalled.
            let pool = BrowserPool(
                configuration: BrowserConfiguration(
                    quietWindow: .milliseconds(500), stalledRequestAge: .seconds(60), pageBudget: .seconds(60), commandTimeout: .seconds(20),
                    maxPages: 1, connectTo: ["::127.0.0.1:\(port)"], preparesNextTab: false))
            func render(_ query: String) async throws -> String {
                let url = try #require(URL(string: "http://trawl-serve.test/?q=\(encoded(query))"))
                let page = try await pool.render(FetchRequest(url: url))
                #expect(page.status == 200)
                return String(decoding: page.html, as: UTF8.self)
            }
            do {
                // A pasted page URL: its one GIF, the search kept in the box, no error.
                let cat = try await render(giphyCatPage)
                let expected = Set(["gif", "mp4", "webp"].map { giphyCatGIF.replacingOccurrences(of: ".gif", with: ".\($0)") })
                #expect(Self.tiles(cat).count == 1 && Self.tiles(cat).allSatisfy(expected.contains), "\(cat)")
                #expect(cat.contains("data-state=\"done\"") && cat.contains("1 result"))
                #expect(!cat.contains("role=\"alert\" class=\"shown\""))

                // A search: several tiles and "Load more" for the next page.
                let search = try await render("!giphy cats")
                #expect(Self.tiles(search).count >= 3, "\(search)")
                #expect(search.contains("id=\"more\" type=\"button\" class=\"shown\""), "\(search)")

                // A result a fallback parser found carries the badge.
                let drift = try await render("https://giphy.com/gifs/drifting-cat-TrwlDrift9")
                #expect(Self.tiles(drift).contains("https://media3.giphy.com/media/v1.Y2lkPXRyYXds/TrwlDrift9/giphy.mp4"), "\(drift)")
                #expect(drift.contains("class=\"badge\""), "\(drift)")

                // An error is shown, with its code.
                let missing = try await render("https://unrecorded.example/page")
                #expect(Self.tiles(missing).isEmpty)
                #expect(missing.contains("role=\"alert\" class=\"shown\"") && missing.contains("no-recorded-entry"), "\(missing)")
            } catch {
                await pool.shutdown()
                throw error
            }
            await pool.shutdown()
        }
    }
}
