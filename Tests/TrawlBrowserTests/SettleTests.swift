import Foundation
import Testing
import TrawlBrowser
import TrawlCore
import TrawlTesting

extension BrowserTests {
    /// Settling before the whole quiet window when the page's scripts have nothing pending
    /// (`BrowserConfiguration.idleProbeAfter`, `ScriptActivity`), and the cases that must still wait.
    /// Each page gets a quiet window far longer than it needs: a page that settled early says so
    /// (`settledEarly`), one that waited the window out does not; no test reads a clock.
    @Suite struct SettleTests {
        static let feed = #"{"items":[{"gif":"https://media.test/first.gif"}]}"#

        @Test func aPageWithNothingPendingSettlesBeforeItsQuietWindow() async throws {
            let site = try BrowserSite(quietWindow: .seconds(4), pageBudget: .seconds(10)) { request in
                switch request.path {
                case "/":
                    .html(
                        """
                        <html><body><div id="app"></div><script>
                        fetch('/api/items').then(r => r.json()).then(d => {
                          app.innerHTML = d.items.map(i => '<img src="' + i.gif + '">').join('');
                        });
                        </script></body></html>
                        """)
                case "/api/items": .json(Self.feed)
                default: .status(404)
                }
            }
            let page = try await site.pool.render(FetchRequest(url: site.url("/")))
            await site.close()
            #expect(page.settled)
            #expect(page.settledEarly)
            #expect(String(decoding: page.html, as: UTF8.self).contains("first.gif"))
            #expect(page.responses.count == 1)
        }

        @Test func timersDueWithinTheWindowHoldThePageUntilTheyHaveRun() async throws {
            // A chain: a timer, then a message through a channel (as React's scheduler posts its
            // work), then another timer, then the request that brings the media.
            let site = try BrowserSite(quietWindow: .seconds(2), pageBudget: .seconds(10)) { request in
                switch request.path {
                case "/":
                    .html(
                        """
                        <html><body><div id="app"></div><script>
                        const channel = new MessageChannel();
                        channel.port1.onmessage = () => setTimeout(() => {
                          fetch('/api/late').then(r => r.json()).then(d => { app.innerHTML = '<img src="' + d.gif + '">'; });
                        }, 400);
                        setTimeout(() => channel.port2.postMessage(null), 300);
                        </script></body></html>
                        """)
                case "/api/late": .json(#"{"gif":"https://media.test/late.gif"}"#)
                default: .status(404)
                }
            }
            let page = try await site.pool.render(FetchRequest(url: site.url("/")))
            await site.close()
            #expect(String(decoding: page.html, as: UTF8.self).contains("late.gif"))
            #expect(page.responses.map(\.info.url.path) == ["/api/late"])
            #expect(page.settledEarly)
        }

        /// Without media, pending work holds the page: an interval, an iframe or an animation loop,
        /// and it waits the whole window.
        @Test func anIntervalAnIframeOrAnAnimationLoopHoldAPageWithoutMedia() async throws {
            let pages = [
                "/interval": "setInterval(() => {}, 100);",
                "/frame": "document.body.appendChild(Object.assign(document.createElement('iframe'), {srcdoc: '<p>x</p>'}));",
                "/animation": "(function spin() { requestAnimationFrame(spin); })();",
            ]
            let site = try BrowserSite(quietWindow: .milliseconds(1200), pageBudget: .seconds(10)) { request in
                if let script = pages[request.path] {
                    return .html(
                        """
                        <html><body><div id="app"></div><script>
                        \(script)
                        fetch('/api/text').then(r => r.json()).then(d => { app.textContent = d.text; });
                        </script></body></html>
                        """)
                }
                return request.path == "/api/text" ? .json(#"{"text":"no media here"}"#) : .status(404)
            }
            for path in pages.keys.sorted() {
                let page = try await site.pool.render(FetchRequest(url: site.url(path)))
                #expect(page.settled, "\(path)")
                #expect(!page.settledEarly, "\(path) settled before its window")
                #expect(String(decoding: page.html, as: UTF8.self).contains("no media here"), "\(path)")
            }
            await site.close()
        }

        /// With media in, the same pending work does not hold the page: a timer due within the
        /// (long) window never runs, whether the media came in an XHR, were built into the DOM, or
        /// were drawn into an open shadow root.
        @Test(.timeLimit(.minutes(1))) func aPageWithMediaSettlesWithoutWaitingForItsPendingWork() async throws {
            let later = "setTimeout(() => fetch('/api/later'), 2500); setInterval(() => {}, 100); (function spin() { requestAnimationFrame(spin); })();"
            let pages = [
                // The XHR names the GIF; the DOM only gets text.
                "/xhr": "fetch('/api/items').then(r => r.json()).then(d => { app.textContent = 'loaded'; \(later) });",
                // The XHR's JSON names no media file; the script builds the <video> itself.
                "/dom": "fetch('/api/text').then(r => r.json()).then(d => { app.innerHTML = '<video src=\"/v/' + d.text.length + '\"></video>'; \(later) });",
                "/shadow": """
                customElements.define('gif-card', class extends HTMLElement {
                  connectedCallback() { this.attachShadow({mode: 'open'}).innerHTML = '<img src="/card.gif">'; }
                });
                fetch('/api/text').then(r => r.json()).then(d => { app.innerHTML = '<gif-card></gif-card>'; \(later) });
                """,
            ]
            let site = try BrowserSite(quietWindow: .seconds(4), pageBudget: .seconds(10)) { request in
                if let script = pages[request.path] {
                    return .html("<html><body><div id=\"app\"></div><script>\(script)</script></body></html>")
                }
                switch request.path {
                case "/api/items": return .json(Self.feed)
                case "/api/text": return .json(#"{"text":"clip"}"#)
                default: return .status(404)
                }
            }
            for path in pages.keys.sorted() {
                let page = try await site.pool.render(FetchRequest(url: site.url(path)))
                #expect(page.settled, "\(path)")
                #expect(page.settledEarly, "\(path) waited for its scripts")
                #expect(!page.responses.contains { $0.info.url.path == "/api/later" }, "\(path): the timer ran")
            }
            await site.close()
            #expect(!site.server.requests.contains { $0.path == "/api/later" })
        }

        /// A widget that asks for its GIF 1.2 s after the load: far past the quiet window, but the
        /// page has no media yet and its timer is due within `pendingTimerWait`.
        static let lateWidget = """
            <html><body><div id="widget"></div><script>
            setTimeout(() => {
              fetch('/api/widget').then(r => r.json()).then(d => { widget.innerHTML = '<img src="' + d.gif + '" width="300" height="200">'; });
            }, 1200);
            </script></body></html>
            """

        @Test(.timeLimit(.minutes(1))) func aPageWithoutMediaWaitsForATimerDueSoon() async throws {
            let site = try BrowserSite(quietWindow: .milliseconds(400)) { request in
                switch request.path {
                case "/": .html(Self.lateWidget)
                case "/api/widget": .json(#"{"gif":"https://media.test/widget.gif"}"#)
                default: .status(404)
                }
            }
            let page = try await site.pool.render(FetchRequest(url: site.url("/")))
            await site.close()
            #expect(page.settled)
            #expect(page.responses.map(\.info.url.path) == ["/api/widget"])
            #expect(String(decoding: page.html, as: UTF8.self).contains("widget.gif"))
        }

        @Test(.timeLimit(.minutes(1))) func aPageWithMediaOrWithoutTheWaitSettlesWithoutTheTimer() async throws {
            let site = try BrowserSite(quietWindow: .milliseconds(400)) { request in
                switch request.path {
                case "/": .html(Self.lateWidget)
                case "/with-media": .html(Self.lateWidget.replacingOccurrences(of: "<body>", with: #"<body><video src="/clip.mp4"></video>"#))
                case "/api/widget": .json(#"{"gif":"https://media.test/widget.gif"}"#)
                default: .status(404)
                }
            }
            let page = try await site.pool.render(FetchRequest(url: site.url("/with-media")))
            #expect(page.settled)
            #expect(page.responses.isEmpty, "settled before its timer ran")
            await site.close()

            // The same widget with timers never holding a page: missed.
            let server = try LoopbackServer(keepsAlive: true) { request in
                request.path == "/" ? .html(Self.lateWidget) : request.path == "/api/widget" ? .json(#"{"gif":"https://media.test/widget.gif"}"#) : .status(404)
            }
            var configuration = BrowserConfiguration(quietWindow: .milliseconds(400), commandTimeout: .seconds(5), connectTo: ["::127.0.0.1:\(server.port)"])
            configuration.pendingTimerWait = nil
            let pool = BrowserPool(configuration: configuration)
            let missed = try await pool.render(FetchRequest(url: URL(string: "http://site.test/")!))
            await pool.shutdown()
            server.shutdown()
            #expect(missed.settled)
            #expect(missed.responses.isEmpty)
            #expect(!server.requests.contains { $0.path == "/api/widget" })
        }

        @Test func withoutProbesAPageWaitsItsWholeWindow() async throws {
            let site = try BrowserSite(quietWindow: .milliseconds(800), idleProbeAfter: nil) { request in
                switch request.path {
                case "/": .html("<html><body><script>fetch('/api/items');</script></body></html>")
                case "/api/items": .json(Self.feed)
                default: .status(404)
                }
            }
            let page = try await site.pool.render(FetchRequest(url: site.url("/")))
            await site.close()
            #expect(page.settled)
            #expect(!page.settledEarly)
            #expect(page.responses.count == 1)
        }
    }
}
