import Foundation
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlBrowser

extension BrowserTests {
    /// ``BrowserIsolation/host``: a tab that served one page of a host serves the next, and nothing the
    /// first page left behind is visible to the second — cookies (script and header), local and
    /// session storage, IndexedDB, Cache Storage, the HTTP cache, a service worker's registration,
    /// a granted permission, `window.name`, the tab's history (a fresh tab's is 2 long: its
    /// `about:blank`, then the page).
    @Suite struct IsolationTests {
        /// Writes everything it can, reports `/api/written`, waits until the test has granted it
        /// geolocation (as a person could mid-page), then reports `/api/granted`. While it waits it
        /// asks for `/api/waiting`: the network is never quiet, so the page does not settle before
        /// the grant, however late a loaded machine makes it.
        static let writer = """
            <html><body><div id="app"></div><script>
            (async () => {
              try {
              document.cookie = 'script=1; max-age=3600';
              localStorage.setItem('k', 'v');
              sessionStorage.setItem('k', 'v');
              window.name = 'first-job';
              history.pushState({}, '', '/write#pushed');
              await new Promise((done, fail) => {
                const open = indexedDB.open('jobdb', 1);
                open.onupgradeneeded = () => open.result.createObjectStore('s');
                open.onerror = fail;
                open.onsuccess = () => {
                  const t = open.result.transaction('s', 'readwrite');
                  t.objectStore('s').put('v', 'k');
                  t.oncomplete = () => { open.result.close(); done(); };
                };
              });
              await (await caches.open('jobcache')).put('/entry', new Response('v'));
              await fetch('/cached');
              // Not awaited: here `register()` does not settle while the page waits on it, yet the
              // registration is made (without the clearing, the next page counts it).
              navigator.serviceWorker.register('/sw.js').catch(() => {});
              await fetch('/api/written');
              while ((await navigator.permissions.query({ name: 'geolocation' })).state !== 'granted') {
                await fetch('/api/waiting');
                await new Promise((resolve) => setTimeout(resolve, 20));
              }
              await fetch('/api/granted');
              } catch (error) { fetch('/api/failed?' + encodeURIComponent(String(error))); }
            })();
            </script></body></html>
            """

        /// Reads all of it into `<pre id="report">` as JSON, then fetches `/cached` again.
        static let reader = """
            <html><body><pre id="report"></pre><script>
            (async () => {
              const report = {
                cookie: document.cookie, local: localStorage.length, session: sessionStorage.length,
                name: window.name, history: history.length,
                databases: (await indexedDB.databases()).map((d) => d.name),
                caches: await caches.keys(),
                workers: (await navigator.serviceWorker.getRegistrations()).length,
                controlled: navigator.serviceWorker.controller !== null,
                geolocation: (await navigator.permissions.query({ name: 'geolocation' })).state,
              };
              await fetch('/cached');
              document.getElementById('report').textContent = JSON.stringify(report);
              await fetch('/api/read');
            })();
            </script></body></html>
            """

        static let clean: [String: JSONValue] = [
            "cookie": .string(""), "local": .number(0), "session": .number(0), "name": .string(""), "history": .number(2),
            "databases": .array([]), "caches": .array([]), "workers": .number(0), "controlled": .bool(false),
            "geolocation": .string("prompt"),
        ]

        @Test(arguments: [BrowserIsolation.host, .page])
        func nothingOfOnePageIsVisibleToTheNext(isolation: BrowserIsolation) async throws {
            // The writer stays open until the test grants it geolocation (it keeps the network busy);
            // the quiet window lets the reader's last writes land.
            let site = try BrowserSite(quietWindow: .seconds(3), pageBudget: .seconds(20), maxPages: 1, isolation: isolation) { request in
                switch request.path {
                case "/write": .ok(headers: [("Content-Type", "text/html"), ("Set-Cookie", "header=1; Max-Age=3600")], body: Data(Self.writer.utf8))
                case "/read": .html(Self.reader)
                case "/sw.js": .ok(headers: [("Content-Type", "text/javascript")], body: Data("self.addEventListener('fetch', () => {});".utf8))
                case "/cached": .ok(headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=3600")], body: Data("{}".utf8))
                case "/api/written", "/api/waiting", "/api/granted", "/api/read", "/api/failed": .json("{}")
                default: .status(404)
                }
            }
            // 127.0.0.1 is a secure context (service workers, Cache Storage); the host site.test is not.
            let origin = "http://127.0.0.1:\(site.server.port)"
            async let written = site.pool.render(FetchRequest(url: URL(string: origin + "/write")!))
            try await site.server.waitForRequests(for: "the first page to write its storage, or fail") {
                $0.contains { $0.path == "/api/written" || $0.path == "/api/failed" }
            }
            let failure = site.server.requests.first { $0.path == "/api/failed" }
            #expect(failure == nil, "the first page could not write: \(failure?.target ?? "")")
            for context in await site.pool.openContextIds {
                _ = try await site.pool.browserCommand(
                    "Browser.grantPermissions",
                    ["permissions": .array([.string("geolocation")]), "origin": .string(origin), "browserContextId": .string(context)])
            }
            _ = try await written
            #expect(site.server.requests.contains { $0.path == "/api/granted" }, "the first page got everything it asked for")

            let read = try await site.pool.render(FetchRequest(url: URL(string: origin + "/read")!))
            #expect(await site.pool.reusedTabs == (isolation == .host ? 1 : 0))
            await site.close()

            let report = try Self.report(read)
            for (key, value) in Self.clean.sorted(by: { $0.key < $1.key }) {
                #expect(report[key] == value, "\(key)")
            }
            #expect(site.server.requests.filter { $0.path == "/cached" }.count == 2, "the second page's /cached came from the cache")
            #expect(site.server.requests.first { $0.path == "/read" }?.header("cookie") == nil)
        }

        /// Leaves a dedicated worker behind that holds an IndexedDB connection open. A clear of the
        /// origin's storage closes that connection (its `close` event): the worker, if it still
        /// runs then, writes IndexedDB and Cache Storage every millisecond
        /// until it is gone (after whatever other clears come). Its GIF
        /// appears once the connection is open (the page settles then).
        static let lateWriter = """
            <html><body><div id="app"></div><script>
            const code = `
              const open = indexedDB.open('held', 1);
              open.onupgradeneeded = () => open.result.createObjectStore('s');
              open.onsuccess = () => {
                open.result.onclose = () => {
                  setInterval(() => {
                    const again = indexedDB.open('late', 1);
                    again.onupgradeneeded = () => again.result.createObjectStore('s');
                    caches.open('late').then((c) => c.put('/entry', new Response('v'))).catch(() => {});
                  }, 1);
                };
                postMessage('open');
              };`;
            const worker = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
            worker.onmessage = () => { document.getElementById('app').innerHTML = '<img src="/first.gif">'; };
            </script></body></html>
            """

        /// What a page still runs when its job has settled (a worker) is gone before the tab is
        /// cleared: the clearing starts once the blank page has replaced the page, so no clear
        /// reaches the worker, and the next job on the reused tab sees nothing it wrote.
        @Test func writesOfAPageThatIsLeavingAreCleared() async throws {
            let gif = Data(MediaBytes.gif(width: 4, height: 4, frames: 2))
            let site = try BrowserSite(quietWindow: .seconds(3), pageBudget: .seconds(20), maxPages: 1, isolation: .host) { request in
                switch request.path {
                case "/write": .html(Self.lateWriter)
                case "/read": .html(Self.reader)
                case "/first.gif": .ok(headers: [("Content-Type", "image/gif")], body: gif)
                case "/cached": .ok(headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=3600")], body: Data("{}".utf8))
                case "/api/read": .json("{}")
                default: .status(404)
                }
            }
            let origin = "http://127.0.0.1:\(site.server.port)"
            let written = try await site.pool.render(FetchRequest(url: URL(string: origin + "/write")!))
            let read = try await site.pool.render(FetchRequest(url: URL(string: origin + "/read")!))
            #expect(await site.pool.reusedTabs == 1)
            await site.close()
            #expect(String(decoding: written.html, as: UTF8.self).contains("first.gif"), "the first page's worker had its database open")
            let report = try Self.report(read)
            for key in ["databases", "caches"] {
                #expect(report[key] == Self.clean[key], "\(key)")
            }
        }

        /// The reader's `<pre id="report">`, parsed.
        static func report(_ page: RenderedPage) throws -> JSONValue {
            let html = String(decoding: page.html, as: UTF8.self)
            let json = html.range(of: #"<pre id="report">"#).flatMap { start in
                html[start.upperBound...].range(of: "</pre>").map { String(html[start.upperBound..<$0.lowerBound]) }
            }
            return try JSONValue(parsing: Data((json ?? "").replacingOccurrences(of: "&quot;", with: "\"").utf8))
        }
    }
}
