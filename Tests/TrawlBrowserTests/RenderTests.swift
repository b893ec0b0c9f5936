import Foundation
import Testing
import TrawlBrowser
import TrawlCore
import TrawlTesting

extension BrowserTests {
    /// Pages that need a browser: XHR payloads, DOMs built by script, scrolling, redirects, hangs.
    @Suite struct RenderTests {
        @Test func mediaFromAFetchedJSONAPIComeAsAnXHRPayload() async throws {
            let site = try BrowserSite { request in
                switch request.path {
                case "/":
                    .html(
                        """
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
}

extension BrowserTests.RenderTests {
    @Test func mediaBuiltOnlyByScriptAreInTheDOMSnapshot() async throws {
        let site = try BrowserSite { request in
            request.path == "/"
                ? .html(
                    """
                    <html><body><main></main><script>
                    setTimeout(() => {
                      const v = document.createElement('video'); v.src = '/clips/wave.mp4'; v.poster = '/clips/wave.gif';
                      document.querySelector('main').appendChild(v);
                      const i = new Image(); i.setAttribute('data-src', '/lazy/spin.gif'); document.querySelector('main').appendChild(i);
                    }, 150);
                    </script></body></html>
                    """) : .status(404)
        }
        let page = try await site.pool.render(FetchRequest(url: site.url("/")))
        await site.close()
        let html = String(decoding: page.html, as: UTF8.self)
        #expect(page.responses.isEmpty)
        #expect(html.contains(#"<video src="/clips/wave.mp4" poster="/clips/wave.gif">"#))
        #expect(html.contains(#"data-src="/lazy/spin.gif""#))
        #expect(page.settled)
    }

    @Test func infiniteScrollLoadsMorePagesOfItems() async throws {
        let site = try BrowserSite(scrollCount: 5) { request in
            switch request.path {
            case "/":
                return .html(
                    """
                    <html><body style="margin:0"><div id="list"></div><script>
                    let next = 1;
                    async function more() {
                      if (next === 0) return;
                      const d = await (await fetch('/api/feed?page=' + next)).json();
                      for (const gif of d.gifs) { const e = document.createElement('img'); e.src = gif; e.style.display = 'block'; e.style.height = '900px'; list.appendChild(e); }
                      next = d.next;
                    }
                    more();
                    window.addEventListener('scroll', () => { if (window.innerHeight + window.scrollY >= document.body.offsetHeight - 10) more(); });
                    </script></body></html>
                    """)
            case "/api/feed":
                let page = Int(request.target.split(separator: "=").last ?? "1") ?? 1
                return .json(#"{"gifs":["/g/\#(page)a.gif","/g/\#(page)b.gif"],"next":\#(page < 3 ? page + 1 : 0)}"#)
            default: return .status(404)
            }
        }
        let page = try await site.pool.render(FetchRequest(url: site.url("/")))
        await site.close()
        let html = String(decoding: page.html, as: UTF8.self)
        for n in 1...3 { #expect(html.contains("/g/\(n)b.gif")) }
        #expect(page.responses.count == 3)
        #expect(page.scrolls == 2)
        // Images are never downloaded, but their URLs are kept.
        #expect(page.blockedRequests.contains("http://site.test/g/3a.gif"))
        #expect(!site.server.requests.contains { $0.path.hasPrefix("/g/") })
    }

    @Test func aScriptRedirectIsFollowedAndTheFinalURLReported() async throws {
        let site = try BrowserSite { request in
            switch request.path {
            case "/old": .html("<html><body><script>setTimeout(() => location.replace('/new?x=1'), 100)</script></body></html>")
            case "/new": .html("<html><body><img src='/final.gif'></body></html>")
            default: .status(404)
            }
        }
        var payloads: [Payload] = []
        for try await payload in BrowserTransport(pool: site.pool).payloads(for: FetchRequest(url: site.url("/old")), context: nil) {
            payloads.append(payload)
        }
        await site.close()
        let dom = try #require(payloads.last)
        #expect(dom.info.origin == .domSnapshot)
        #expect(dom.info.url.absoluteString == "http://site.test/new?x=1")
        #expect(dom.info.requestURL.absoluteString == "http://site.test/old")
        #expect(dom.text.contains("/final.gif"))
    }

    @Test func aRequestThatNeverEndsDoesNotHoldThePageBack() async throws {
        let site = try BrowserSite(pageBudget: .seconds(6)) { request in
            switch request.path {
            case "/":
                .html(
                    """
                    <html><body><script>
                    fetch('/hang');
                    fetch('/api/one').then(r => r.json()).then(d => document.body.insertAdjacentHTML('beforeend', '<img src="' + d.gif + '">'));
                    </script></body></html>
                    """)
            case "/hang": .drip(headers: [("Content-Type", "application/json")], chunks: [Data("[".utf8)], interval: .seconds(30))
            case "/api/one": .json(#"{"gif":"/one.gif"}"#)
            default: .status(404)
            }
        }
        let page = try await site.pool.render(FetchRequest(url: site.url("/")))
        await site.close()
        // Settled by the quiet rule, not stopped by the budget.
        #expect(page.settled)
        #expect(String(decoding: page.html, as: UTF8.self).contains("/one.gif"))
        #expect(page.responses.map(\.info.url.path) == ["/api/one"])
    }

    @Test func aScriptThatNeverYieldsFailsThatPageAndTheNextPageWorks() async throws {
        let site = try BrowserSite(pageBudget: .seconds(3)) { request in
            switch request.path {
            case "/spin": .html("<html><body><p>before</p><script>while (true) {}</script></body></html>")
            case "/fine": .html("<html><body><script>document.body.innerHTML = '<img src=\"/ok.gif\">'</script></body></html>")
            default: .status(404)
            }
        }
        _ = try await site.pool.render(FetchRequest(url: site.url("/fine")))
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: BrowserError.self) {
            do {
                _ = try await site.pool.render(FetchRequest(url: site.url("/spin")))
            } catch let error as BrowserError {
                #expect(error.code == .scriptHung)
                #expect(error.errorCode == "script-hung")
                #expect(error.description.contains("http://site.test/spin"))
                throw error
            }
        }
        // The budget is kept by the page's own timers; a loaded machine may run them late.
        #expect(clock.now - start < .milliseconds(4500))
        let page = try await site.pool.render(FetchRequest(url: site.url("/fine")))
        #expect(String(decoding: page.html, as: UTF8.self).contains("/ok.gif"))
        #expect(await site.pool.launches == 1)
        // The spinning page's renderer does not live on: its tab and context are gone.
        let browser = try #require(await site.pool.browserProcessID)
        try await waitUntil("the spinning page's renderer to end and its tab to close", within: .seconds(60), interval: .milliseconds(20)) {
            let open = await site.pool.openPageCount
            return open == 0 && descendants(of: browser).allSatisfy { cpuTicks($0) <= 150 }
        }
        await site.close()
    }

    @Test func aPageThatCannotLoadFailsWithTheBrowsersReason() async throws {
        let site = try BrowserSite { _ in .hangUp }
        await #expect(throws: BrowserError.self) {
            do {
                _ = try await site.pool.render(FetchRequest(url: site.url("/")))
            } catch let error as BrowserError {
                #expect(error.code == .navigationFailed)
                #expect(error.description.contains("net::ERR_"))
                throw error
            }
        }
        await site.close()
    }

    @Test func browserContextsKeepCookiesApartBetweenJobs() async throws {
        let site = try BrowserSite { request in
            switch request.path {
            case "/set":
                .ok(
                    headers: [("Content-Type", "text/html"), ("Set-Cookie", "session=abc; Path=/")],
                    body: Data("<script>location.replace('/show')</script>".utf8))
            case "/show": .html("<html><body><script>document.body.textContent = 'cookies=[' + document.cookie + ']'</script></body></html>")
            default: .status(404)
            }
        }
        // Within one job the cookie is kept…
        let first = try await site.pool.render(FetchRequest(url: site.url("/set")))
        #expect(String(decoding: first.html, as: UTF8.self).contains("cookies=[session=abc]"))
        // …and the next job starts without it.
        let second = try await site.pool.render(FetchRequest(url: site.url("/show")))
        await site.close()
        #expect(String(decoding: second.html, as: UTF8.self).contains("cookies=[]"))
        let shows = site.server.requests.filter { $0.path == "/show" }
        #expect(shows.map { $0.header("Cookie") } == ["session=abc", nil])
    }

    @Test func cancellingTheConsumerClosesThePage() async throws {
        let site = try BrowserSite(pageBudget: .seconds(20)) { request in
            request.path == "/" ? .html("<html><body><script>while (true) {}</script></body></html>") : .status(404)
        }
        let pool = site.pool
        let task = Task { try await pool.render(FetchRequest(url: site.url("/"))) }
        // Cancelled with the page open: its tab asked for the page that never finishes.
        try await site.server.waitForRequests(for: "the page's request") { $0.contains { $0.path == "/" } }
        #expect(await pool.openPageCount == 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        try await waitUntil("the cancelled page's tab to close", within: .seconds(60)) { await pool.openPageCount == 0 }
        await site.close()
    }
}

extension BrowserTests.RenderTests {
    @Test func leavingTheTransportsStreamEarlyClosesThePage() async throws {
        let site = try BrowserSite(pageBudget: .seconds(20)) { request in
            switch request.path {
            case "/": .html("<html><body><script>fetch('/api/first'); setInterval(() => fetch('/tick'), 100)</script></body></html>")
            case "/api/first": .json(#"{"gif":"/first.gif"}"#)
            case "/tick": .json("{}")
            default: .status(404)
            }
        }
        let transport = BrowserTransport(pool: site.pool)
        var first: Payload?
        for try await payload in transport.payloads(for: FetchRequest(url: site.url("/")), context: nil) {
            first = payload
            break
        }
        #expect(first?.info.origin == .browserXHR)
        // Usually `/api/first`; on a loaded machine the page's first tick can answer before it.
        #expect(["/api/first", "/tick"].contains(first?.info.url.path))
        try await waitUntil("the page's tab to close", within: .seconds(60)) { await site.pool.openPageCount == 0 }
        // The page's timer stopped with its tab.
        let ticks = site.server.requests.filter { $0.path == "/tick" }.count
        // Not a wait: a window in which a live 100 ms timer would tick; the silence is checked.
        try await Task.sleep(for: .milliseconds(500))
        #expect(site.server.requests.filter { $0.path == "/tick" }.count == ticks)
        await site.close()
    }
}

extension BrowserTests.RenderTests {
    @Test func dialogsDoNotStopThePage() async throws {
        let site = try BrowserSite(pageBudget: .seconds(6)) { request in
            request.path == "/"
                ? .html(
                    """
                    <html><body><script>
                    alert('welcome');
                    if (confirm('continue?')) document.body.innerHTML = '<img src="/after-dialogs.gif">';
                    </script></body></html>
                    """) : .status(404)
        }
        let page = try await site.pool.render(FetchRequest(url: site.url("/")))
        await site.close()
        #expect(page.settled)
        #expect(String(decoding: page.html, as: UTF8.self).contains("/after-dialogs.gif"))
    }
}
