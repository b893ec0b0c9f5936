import Foundation
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlHTML
import TrawlParsers

extension BrowserTests {
    /// Rendered payloads go through the same scanner and parser chain as fetched ones, unchanged.
    @Suite struct ParserChainTests {
        private func resolve(_ site: BrowserSite, _ path: String) async throws -> [Media] {
            let environment = Environment(
                transport: BrowserTransport(pool: site.pool), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
            let provider = SearchProvider(environment: environment)
            var media: [Media] = []
            for try await set in provider.results(for: Request(site.url(path).absoluteString)) { media += set.media }
            return media
        }

        @Test func genericParsersFindMediaInTheRenderedDOM() async throws {
            let site = try BrowserSite { request in
                switch request.path {
                case "/":
                    .html(
                        """
                        <html><head><title>Script-built gallery</title></head><body><div id="root"></div><script>
                        fetch('/api/gallery').then(r => r.json()).then(d => {
                          root.innerHTML = '<video src="https://media.test/clip.mp4" poster="https://media.test/poster.jpg"></video>'
                            + '<img src="https://media.test/built.gif" width="320" height="240">';
                        });
                        </script></body></html>
                        """)
                case "/api/gallery": .json(#"{"data":{"gifs":[{"url":"https://media.test/from-api.gif","width":480,"height":270}]}}"#)
                default: .status(404)
                }
            }
            let media = try await resolve(site, "/")
            await site.close()
            let urls = Set(media.map(\.url))
            #expect(urls.contains("https://media.test/built.gif"))
            #expect(urls.contains("https://media.test/clip.mp4"))
            // The API's answer went out first, as it arrived; the DOM's media after the page settled.
            #expect(media.first?.url == "https://media.test/from-api.gif")
            #expect(media.first?.provenance.origin == .browserXHR)
            #expect(media.dropFirst().allSatisfy { $0.provenance.origin == .domSnapshot })
            #expect(media.allSatisfy { $0.page == "http://site.test/" })
        }

        @Test func mediaOnlyInAnXHRPayloadAreFoundThere() async throws {
            let site = try BrowserSite { request in
                switch request.path {
                case "/":
                    .html(
                        """
                        <html><head><title>Counter</title></head><body><p id="n"></p><script>
                        fetch('/api/items').then(r => r.json()).then(d => { n.textContent = d.items.length + ' items'; });
                        </script></body></html>
                        """)
                case "/api/items": .json(#"{"items":[{"media":"https://media.test/only-in-api.gif"}]}"#)
                default: .status(404)
                }
            }
            let media = try await resolve(site, "/")
            await site.close()
            let found = try #require(media.first { $0.url == "https://media.test/only-in-api.gif" })
            #expect(found.provenance.origin == .browserXHR)
            #expect(found.provenance.payloadURL == "http://site.test/api/items")
        }
    }
}
