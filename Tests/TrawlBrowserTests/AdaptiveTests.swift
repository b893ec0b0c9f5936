import Foundation
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlEngines
import TrawlParsers
import TrawlTesting

extension BrowserTests {
    /// `--browser auto` through the whole pipeline: static first, the browser only for a page whose
    /// static fetch found nothing and that looks script-driven, remembered per host.
    @Suite struct AdaptiveTests {
        /// A static article with a GIF, and a script-built gallery under /app/ (an empty app root
        /// filled from an API).
        static func site() throws -> LoopbackServer {
            try requireBrowser()
            return try LoopbackServer(keepsAlive: true) { request in
                if request.path.hasPrefix("/app/") {
                    return .html(
                        """
                        <html><head><title>Gallery</title></head><body><div id="root"></div><script>
                        fetch('/api' + location.pathname).then(r => r.json()).then(d => {
                          document.getElementById('root').innerHTML = '<video src="' + d.clip + '" width="480" height="270"></video>';
                        });
                        </script></body></html>
                        """)
                }
                if request.path.hasPrefix("/api/app/") {
                    let id = request.path.split(separator: "/").last ?? "x"
                    return .json(#"{"clip":"https://media.test/\#(id).mp4"}"#)
                }
                if request.path == "/hung" {
                    // Looks script-driven (an empty app root) and its script never yields: rendering fails.
                    return .html(#"<html><head><title>Hung</title></head><body><div id="root"></div><script>while (true) {}</script></body></html>"#)
                }
                if request.path == "/article" {
                    return .html(
                        #"<html><head><title>A GIF</title><meta property="og:image" content="https://media.test/static.gif"></head><body><p>An article with enough words to be a page of its own, not a shell waiting for a script.</p></body></html>"#
                    )
                }
                return .status(404)
            }
        }

        func environment(_ server: LoopbackServer, mode: BrowserMode, pageBudget: Duration = .seconds(8)) -> Environment {
            var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::127.0.0.1:\(server.port)"]))
            configuration.browser = mode
            configuration.browserConfiguration = BrowserConfiguration(quietWindow: .milliseconds(300), pageBudget: pageBudget)
            return Environment(configuration)
        }

        func resolve(_ url: String, _ environment: Environment) async throws -> [Media] {
            var media: [Media] = []
            for try await set in SearchProvider(environment: environment).results(for: Request(url)) { media += set.media }
            return media
        }

        func pool(_ environment: Environment) throws -> BrowserPool {
            try #require((environment.renderer as? AdaptiveRenderer)?.pool)
        }

        @Test func aStaticPageNeverStartsABrowser() async throws {
            let server = try Self.site()
            defer { server.shutdown() }
            let environment = environment(server, mode: .auto)
            let media = try await resolve("http://site.test/article", environment)
            #expect(media.map(\.url) == ["https://media.test/static.gif"])
            #expect(media.allSatisfy { !$0.provenance.origin.isRendered })
            #expect(try await pool(environment).launches == 0)
        }

        @Test func aScriptDrivenPageIsRenderedAndItsHostRemembered() async throws {
            let server = try Self.site()
            defer { server.shutdown() }
            let environment = environment(server, mode: .auto)
            let browser = try pool(environment)
            let first = try await resolve("http://site.test/app/one", environment)
            #expect(first.map(\.url) == ["https://media.test/one.mp4"])
            // Out as the page's API answered, before it settled (its DOM's copy adds nothing).
            #expect(first.allSatisfy { $0.provenance.origin == .browserXHR && $0.page == "http://site.test/app/one" })
            #expect(await browser.launches == 1)
            // Fetched statically first, then rendered: two document requests.
            #expect(server.requests.filter { $0.path == "/app/one" }.count == 2)

            // Three pages in a row needed the browser: the host's next page goes straight to it.
            for page in ["two", "three"] {
                #expect(try await resolve("http://site.test/app/\(page)", environment).map(\.url) == ["https://media.test/\(page).mp4"])
                #expect(server.requests.filter { $0.path == "/app/\(page)" }.count == 2)
            }
            let fourth = try await resolve("http://site.test/app/four", environment)
            #expect(fourth.map(\.url) == ["https://media.test/four.mp4"])
            #expect(server.requests.filter { $0.path == "/app/four" }.count == 1)
            #expect(await browser.launches == 1, "one browser serves every page")
            await browser.shutdown()
        }

        @Test func aFailedRenderLeavesTheStaticResultWithAWarning() async throws {
            let server = try Self.site()
            defer { server.shutdown() }
            let environment = environment(server, mode: .auto, pageBudget: .seconds(2))
            var sets: [ResultSet] = []
            // No throw: the static fetch succeeded, so its (empty) result is the page's outcome.
            for try await set in SearchProvider(environment: environment).results(for: Request("http://site.test/hung")) { sets.append(set) }
            #expect(sets.flatMap(\.media).isEmpty)
            let warnings = sets.flatMap(\.diagnostics).filter { $0.level == .warning && $0.source == "browser" }
            #expect(warnings.count == 1)
            #expect(warnings.first?.message.hasPrefix(WebEngine.renderFailedPrefix) == true)
            #expect(warnings.first?.message.contains("script hung") == true, "the render's error is named: \(warnings)")
            #expect(server.requests.filter { $0.path == "/hung" }.count == 2, "fetched statically, then the render tried")
            await (try pool(environment)).shutdown()
        }

        @Test func neverAndAlways() async throws {
            let server = try Self.site()
            defer { server.shutdown() }
            let never = environment(server, mode: .never)
            #expect(never.renderer == nil)
            #expect(try await resolve("http://site.test/app/five", never).isEmpty)

            let always = environment(server, mode: .always)
            let media = try await resolve("http://site.test/article", always)
            #expect(media.first?.url == "https://media.test/static.gif")
            #expect(media.first?.provenance.origin == .domSnapshot, "always renders, even a static page")
            #expect(server.requests.filter { $0.path == "/article" }.count == 1, "no static fetch first")
            await (try pool(always)).shutdown()
        }
    }
}
