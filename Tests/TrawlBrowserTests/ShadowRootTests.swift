import Foundation
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlTesting

extension BrowserTests {
    /// Media a web component draws inside its open shadow root: the DOM snapshot writes each open
    /// shadow root inline in its host, so the parsers read it as they read the rest of the page.
    @Suite(.timeLimit(.minutes(2))) struct ShadowRootTests {
        /// `<gif-card>` draws its GIF in an open shadow root; `<clip-card>` draws a `<gif-card>`-like
        /// frame whose `<video>` sits in a shadow root inside its own shadow root. The media URLs are
        /// put together by the script, so the static page does not name them.
        static let page = """
            <html><head><title>Cards</title></head><body><main><gif-card></gif-card><clip-card><p>light child</p></clip-card></main>
            <script>
            const media = (name) => 'https://media.test/' + name;
            customElements.define('gif-card', class extends HTMLElement {
              constructor() {
                super();
                const root = this.attachShadow({ mode: 'open' });
                root.innerHTML = '<figure><img src="' + media('card' + '.gif') + '" width="320" height="240" alt="a &amp; b"></figure>';
              }
            });
            customElements.define('clip-frame', class extends HTMLElement {
              constructor() {
                super();
                this.attachShadow({ mode: 'open' }).innerHTML = '<video src="' + media('inner' + '.mp4') + '" width="480" height="270"></video>';
              }
            });
            customElements.define('clip-card', class extends HTMLElement {
              constructor() {
                super();
                this.attachShadow({ mode: 'open' }).innerHTML = '<div class="frame"><clip-frame></clip-frame></div><slot></slot>';
              }
            });
            customElements.define('secret-card', class extends HTMLElement {
              constructor() { super(); this.attachShadow({ mode: 'closed' }).innerHTML = '<img src="' + media('closed' + '.gif') + '">'; }
            });
            </script></body></html>
            """

        static func server() throws -> LoopbackServer {
            try requireBrowser()
            return try LoopbackServer(keepsAlive: true) { request in
                request.path == "/cards" ? .html(page) : .status(404)
            }
        }

        @Test func openShadowRootsAreWrittenInlineNestedOnesToo() async throws {
            let site = try BrowserSite { request in request.path == "/cards" ? .html(Self.page) : .status(404) }
            let page = try await site.pool.render(FetchRequest(url: site.url("/cards")))
            await site.close()
            let html = String(decoding: page.html, as: UTF8.self)
            #expect(html.hasPrefix("<html><head><title>Cards</title>"), "\(html.prefix(200))")
            #expect(
                html.contains(#"<gif-card><figure><img src="https://media.test/card.gif" width="320" height="240" alt="a &amp; b"></figure></gif-card>"#),
                "\(html)")
            #expect(
                html.contains(
                    #"<clip-card><div class="frame"><clip-frame><video src="https://media.test/inner.mp4" width="480" height="270"></video></clip-frame></div><slot></slot><p>light child</p></clip-card>"#
                ), "\(html)")
            // The page's script is written as it is, not escaped.
            #expect(html.contains("const media = (name) => 'https://media.test/' + name;"))
        }

        func environment(_ server: LoopbackServer, mode: BrowserMode) -> Environment {
            var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::127.0.0.1:\(server.port)"]))
            configuration.browser = mode
            configuration.browserConfiguration = BrowserConfiguration(quietWindow: .milliseconds(300), pageBudget: .seconds(8))
            return Environment(configuration)
        }

        @Test(arguments: [BrowserMode.always, .auto])
        func theMediaOfShadowRootsAreResolved(mode: BrowserMode) async throws {
            let server = try Self.server()
            defer { server.shutdown() }
            let environment = environment(server, mode: mode)
            var media: [Media] = []
            for try await set in SearchProvider(environment: environment).results(for: Request("http://site.test/cards")) {
                media += set.media
            }
            await (environment.renderer as? AdaptiveRenderer)?.pool.shutdown()
            #expect(Set(media.map(\.url)) == ["https://media.test/card.gif", "https://media.test/inner.mp4"], "\(media.map(\.url))")
            #expect(media.allSatisfy { $0.provenance.origin == .domSnapshot })
        }
    }
}
