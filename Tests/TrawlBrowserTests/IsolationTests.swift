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
        /// the grant, however late a loaded machine makes it. Before that, its writes (IndexedDB,
        /// Cache Storage) make no network event: an interval kept until the grant is what the
        /// settle rule counts as work pending (``ScriptActivity``), so the page is not settled on
        /// its scripts' word in the middle of them.
        static let writer = """
            <html><body><div id="app"></div><script>
            const working = setInterval(() => {}, 20);
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
              clearInterval(working);
            })();
            </script></body></html>
            """

        /// Reads all of it into `<pre id="report">` as JSON, then fetches `/cached` again. Its reads
        /// make no network event: the interval until the report is written keeps it from being
        /// settled on its scripts' word before (``ScriptActivity``).
        static let reader = """
            <html><body><pre id="report"></pre><script>
            const reading = setInterval(() => {}, 20);
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
              clearInterval(reading);
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

            let html = String(decoding: read.html, as: UTF8.self)
            let json = html.range(of: #"<pre id="report">"#).flatMap { start in
                html[start.upperBound...].range(of: "</pre>").map { String(html[start.upperBound..<$0.lowerBound]) }
            }
            try #require(json?.isEmpty == false, "the reader settled before it had written its report: \(html)")
            let report = try JSONValue(parsing: Data((json ?? "").replacingOccurrences(of: "&quot;", with: "\"").utf8))
            for (key, value) in Self.clean.sorted(by: { $0.key < $1.key }) {
                #expect(report[key] == value, "\(key)")
            }
            #expect(site.server.requests.filter { $0.path == "/cached" }.count == 2, "the second page's /cached came from the cache")
            #expect(site.server.requests.first { $0.path == "/read" }?.header("cookie") == nil)
        }
    }
}
