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
            case "/": .html("""
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
            case "/": .html("""
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

    @Test func anIntervalAnIframeOrAnAnimationLoopWaitTheWholeWindow() async throws {
        let pages = [
            "/interval": "setInterval(() => {}, 100);",
            "/frame": "document.body.appendChild(Object.assign(document.createElement('iframe'), {srcdoc: '<p>x</p>'}));",
            "/animation": "(function spin() { requestAnimationFrame(spin); })();",
        ]
        let site = try BrowserSite(quietWindow: .milliseconds(1200), pageBudget: .seconds(10)) { request in
            if let script = pages[request.path] {
                return .html("""
                    <html><body><div id="app"></div><script>
                    \(script)
                    fetch('/api/items').then(r => r.json()).then(d => { app.innerHTML = '<img src="' + d.items[0].gif + '">'; });
                    </script></body></html>
                    """)
            }
            return request.path == "/api/items" ? .json(Self.feed) : .status(404)
        }
        for path in pages.keys.sorted() {
            let page = try await site.pool.render(FetchRequest(url: site.url(path)))
            #expect(page.settled, "\(path)")
            #expect(!page.settledEarly, "\(path) settled before its window")
            #expect(String(decoding: page.html, as: UTF8.self).contains("first.gif"), "\(path)")
        }
        await site.close()
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
