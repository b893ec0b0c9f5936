import Foundation
import Testing
import TrawlBrowser
import TrawlCore
import TrawlTesting

@Suite(.serialized) struct RenderTests {
    @Test func mediaFromAFetchedJSONAPIComeAsAnXHRPayload() async throws {
        let site = try BrowserSite { request in
            switch request.path {
            case "/": .html("""
                <html><body><div id="app"></div><script>
                fetch('/api/items?page=1').then(r => r.json()).then(d => {
                  document.getElementById('app').innerHTML = d.items.map(i => '<img src="' + i.gif + '">').join('');
                });
                </script></body></html>
                """)
            case "/api/items": .json(#"{"items":[{"gif":"https://media.test/cat.gif"},{"gif":"https://media.test/dog.gif"}]}"#)
            default: .status(404)
            }
        }
        let transport = BrowserTransport(pool: site.pool)
        var payloads: [Payload] = []
        for try await payload in transport.payloads(for: FetchRequest(url: site.url("/")), context: nil) { payloads.append(payload) }
        await site.close()

        #expect(payloads.map(\.info.origin) == [.browserXHR, .domSnapshot])
        let xhr = try #require(payloads.first)
        #expect(xhr.info.url.absoluteString == "http://site.test/api/items?page=1")
        #expect(xhr.info.contentType == "application/json")
        #expect(xhr.info.status == 200)
        #expect(xhr.text.contains("cat.gif"))
        let dom = try #require(payloads.last)
        #expect(dom.info.url.absoluteString == "http://site.test/")
        #expect(dom.info.contentType == "text/html")
        #expect(dom.text.hasPrefix("<!DOCTYPE html>") || dom.text.hasPrefix("<html"))
        #expect(dom.text.contains(#"<img src="https://media.test/dog.gif">"#))
    }
}
