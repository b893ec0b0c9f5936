import Foundation
import Synchronization
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlRecordings
import TrawlTesting

extension BrowserTests {
    /// A worker's requests are the page's: paused like its own, so an interceptor (a replay, the
    /// address guard) answers or refuses them before anything is sent.
    @Suite struct WorkerTests {
        /// The page starts a worker (`dedicated`: `new Worker`, else `new SharedWorker`) that fetches
        /// `/from-worker` and hands the answer back to the page, which writes it into its DOM.
        static func site(dedicated: Bool) throws -> BrowserSite {
            try BrowserSite { request in
                switch request.path {
                case "/":
                    .html(
                        dedicated
                            ? """
                            <html><body><p id="out">waiting</p><script>
                            const w = new Worker('/worker.js');
                            w.onmessage = e => { out.textContent = e.data; };
                            </script></body></html>
                            """
                            : """
                            <html><body><p id="out">waiting</p><script>
                            const w = new SharedWorker('/shared.js');
                            w.port.onmessage = e => { out.textContent = e.data; };
                            w.port.start();
                            </script></body></html>
                            """)
                case "/worker.js":
                    .ok(
                        headers: [("Content-Type", "text/javascript")],
                        body: Data(
                            """
                            fetch('/from-worker').then(r => r.text()).then(t => postMessage('worker got ' + t), e => postMessage('worker failed'));
                            """.utf8))
                case "/shared.js":
                    .ok(
                        headers: [("Content-Type", "text/javascript")],
                        body: Data(
                            """
                            onconnect = e => { const port = e.ports[0];
                              fetch('/from-worker').then(r => r.text()).then(t => port.postMessage('worker got ' + t), () => port.postMessage('worker failed')); };
                            """.utf8))
                case "/from-worker": .ok(headers: [("Content-Type", "text/plain")], body: Data("network".utf8))
                default: .status(404)
                }
            }
        }

        static func workerRequests(_ server: LoopbackServer) -> Int { server.requests.filter { $0.path == "/from-worker" }.count }

        @Test func aWorkersRequestIsAnsweredByTheInterceptorAndNeverSent() async throws {
            let site = try Self.site(dedicated: true)
            // Control: with nothing intercepting, the worker's request reaches the server.
            let control = try await site.pool.render(FetchRequest(url: site.url("/")))
            #expect(String(decoding: control.html, as: UTF8.self).contains("worker got network"))
            #expect(Self.workerRequests(site.server) == 1)

            let asked = Mutex<[String]>([])
            let answering = RequestInterceptor { request in
                guard request.url.path == "/from-worker" else { return .next }
                asked.withLock { $0.append(request.url.absoluteString) }
                return .fulfill(InterceptedResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Data("interceptor".utf8)))
            }
            let pool = BrowserPool(configuration: site.pool.configuration, interceptors: [answering])
            let page = try await pool.render(FetchRequest(url: site.url("/")))
            await pool.shutdown()
            await site.close()
            #expect(String(decoding: page.html, as: UTF8.self).contains("worker got interceptor"))
            #expect(asked.withLock { $0 } == ["http://site.test/from-worker"])
            #expect(Self.workerRequests(site.server) == 1)
        }

        @Test func aWorkersRequestReplaysFromTheRecording() async throws {
            let site = try Self.site(dedicated: true)
            let port = site.server.port
            let recorder = HARRecorder()
            var live = RecordReplayTests.configuration(port: port)
            live.recorder = recorder
            _ = try? await RecordReplayTests.resolve("http://site.test/", live)
            let recorded = await recorder.recorded.map(\.request.url)
            #expect(recorded.contains("http://site.test/from-worker"))
            let archive = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-worker-\(UUID().uuidString).har")
            defer { try? FileManager.default.removeItem(at: archive) }
            try await recorder.write(to: archive)
            let sent = Self.workerRequests(site.server)

            // The replay answers the worker from the HAR: the page shows the recorded answer, and
            // the server (still listening) hears nothing.
            let pool = BrowserPool(
                configuration: site.pool.configuration,
                interceptors: [.replaying(from: try ReplayTransport(path: archive))])
            let page = try await pool.render(FetchRequest(url: site.url("/")))
            await pool.shutdown()
            await site.close()
            #expect(String(decoding: page.html, as: UTF8.self).contains("worker got network"))
            #expect(Self.workerRequests(site.server) == sent)
        }

        /// A shared worker is not a child of the page's target (the page's auto-attach does not
        /// reach it), so its requests are not paused; in a replay the browser's offline resolver
        /// refuses them instead — still never sent.
        @Test func aSharedWorkersRequestIsRefusedInAReplay() async throws {
            let site = try Self.site(dedicated: false)
            // Control: live, the shared worker's request reaches the server.
            let control = try await site.pool.render(FetchRequest(url: site.url("/")))
            #expect(String(decoding: control.html, as: UTF8.self).contains("worker got network"))
            #expect(Self.workerRequests(site.server) == 1)

            // A replay as Trawl runs one: every request answered from the recording (here the page
            // and the worker's script), the browser offline. The server still listens.
            let entries = ["/": site.url("/"), "/shared.js": site.url("/shared.js")]
            let recordedOnly = RequestInterceptor { request in
                guard entries.values.contains(request.url) else { return .fail(.internetDisconnected) }
                let script = request.url.path == "/shared.js"
                let body =
                    script
                    ? "onconnect = e => { const port = e.ports[0]; fetch('/from-worker').then(r => r.text()).then(t => port.postMessage('worker got ' + t), () => port.postMessage('worker failed')); };"
                    : "<html><body><p id=\"out\">waiting</p><script>const w = new SharedWorker('/shared.js'); w.port.onmessage = e => { out.textContent = e.data; }; w.port.start();</script></body></html>"
                return .fulfill(
                    InterceptedResponse(
                        status: 200, headers: ["Content-Type": script ? "text/javascript" : "text/html"], body: Data(body.utf8)))
            }
            var offline = site.pool.configuration
            offline.offline = true
            let pool = BrowserPool(configuration: offline, interceptors: [recordedOnly])
            let page = try await pool.render(FetchRequest(url: site.url("/")))
            await pool.shutdown()
            await site.close()
            #expect(String(decoding: page.html, as: UTF8.self).contains("worker failed"))
            #expect(Self.workerRequests(site.server) == 1)
        }
    }
}
