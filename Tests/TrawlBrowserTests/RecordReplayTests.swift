import Foundation
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlTesting

extension BrowserTests {
    /// `--record` and `--replay` through the browser: its requests go into the run's HAR with the
    /// static fetches, and a replay answers them from it with the network out of reach.
    @Suite struct RecordReplayTests {
        /// A page whose one GIF arrives by `fetch()` from a script that is itself a separate file,
        /// reached through an HTTP redirect.
        static func page(_ request: TestRequest) -> TestResponse {
            switch request.path {
            case "/old": .redirect("/gallery")
            case "/gallery":
                .html(
                    """
                    <html><head><title>Script gallery</title><script src="/app.js"></script></head>
                    <body><div id="grid"></div><img src="/logo.png"></body></html>
                    """)
            case "/app.js":
                .ok(
                    headers: [("Content-Type", "text/javascript")],
                    body: Data(
                        """
                        addEventListener('DOMContentLoaded', () => fetch('/api/items?api_key=SECRET123&_=' + Date.now())
                          .then(r => r.json()).then(d => { grid.innerHTML = d.items.map(i => '<img src="' + i.url + '">').join(''); }));
                        """.utf8))
            case "/api/items": .json(#"{"items":[{"url":"https://media.test/recorded.gif","width":320,"height":240}]}"#)
            default: .status(404)
            }
        }

        static func configuration(port: Int) -> TrawlConfiguration {
            var configuration = TrawlConfiguration(loader: LoaderConfiguration(connectTo: ["::127.0.0.1:\(port)"]))
            configuration.browser = .always
            configuration.browserConfiguration = BrowserConfiguration(quietWindow: .milliseconds(300), pageBudget: .seconds(8), commandTimeout: .seconds(5))
            return configuration
        }

        static func resolve(_ input: String, _ configuration: TrawlConfiguration) async throws -> [Media] {
            let environment = Environment(configuration)
            let provider = SearchProvider(environment: environment)
            var media: [Media] = []
            do {
                for try await set in provider.results(for: Request(input)) { media += set.media }
            } catch {
                await (environment.renderer as? AdaptiveRenderer)?.pool.shutdown()
                throw error
            }
            await (environment.renderer as? AdaptiveRenderer)?.pool.shutdown()
            return media
        }

        @Test func aRecordedBrowserPageReplaysWithItsServerStopped() async throws {
            try requireBrowser()
            let server = try LoopbackServer(keepsAlive: true, handler: Self.page)
            let recorder = HARRecorder()
            var live = Self.configuration(port: server.port)
            live.recorder = recorder
            let recorded = try await Self.resolve("http://site.test/old", live)
            server.shutdown()
            #expect(recorded.map(\.url) == ["https://media.test/recorded.gif"])

            // The browser's own responses are in the HAR: the redirect, the document, the script,
            // the XHR (its key scrubbed); the blocked image is not.
            let entries = await recorder.recorded
            let urls = entries.map(\.request.url)
            #expect(
                entries.contains {
                    $0.request.url == "http://site.test/old" && $0.response.status == 302 && $0.response.headers.contains { $0.name.lowercased() == "location" }
                })
            #expect(urls.contains("http://site.test/app.js"))
            let xhr = try #require(entries.first { $0.origin == .browserXHR })
            #expect(xhr.request.url.hasPrefix("http://site.test/api/items?api_key=REDACTED"))
            #expect(xhr.response.content.text?.contains("recorded.gif") == true)
            #expect(!entries.contains { $0.request.url.hasSuffix("/logo.png") })
            let archive = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-browser-\(UUID().uuidString).har")
            defer { try? FileManager.default.removeItem(at: archive) }
            try await recorder.write(to: archive)

            // The network is off: the server is gone, no host name resolves, nothing falls back.
            var replayed = Self.configuration(port: server.port)
            replayed.loader = LoaderConfiguration()
            replayed.replay = try TrawlConfiguration.Replay(path: archive)
            let media = try await Self.resolve("http://site.test/old", replayed)
            let gif = try #require(media.first)
            #expect(media.count == 1)
            #expect(gif.url == "https://media.test/recorded.gif")
            #expect(gif.provenance.origin == .domSnapshot || gif.provenance.origin == .browserXHR)
        }

        @Test func aRequestMissingFromTheRecordingFailsAndNeverGoesOut() async throws {
            try requireBrowser()
            // The page asks for something the recording does not have: the replay fails that request
            // (the page sees a network error), and the server that would answer it sees nothing.
            let witness = try LoopbackServer(keepsAlive: true) { _ in .json(#"{"items":[{"url":"https://media.test/live.gif"}]}"#) }
            defer { witness.shutdown() }
            let document = HAREntry(
                payload: Payload(
                    body: Data(
                        """
                        <html><body><div id="grid"></div><script>
                        fetch('/api/unrecorded').then(r => r.json()).then(d => { grid.innerHTML = '<img src="' + d.items[0].url + '">'; })
                          .catch(e => { grid.innerHTML = '<p>offline</p><img src="https://media.test/fallback.gif" width="320" height="240">'; });
                        </script></body></html>
                        """.utf8),
                    info: PayloadInfo(
                        url: URL(string: "http://site.test/")!, status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], origin: .document)),
                request: FetchRequest(url: URL(string: "http://site.test/")!))
            var configuration = Self.configuration(port: witness.port)
            configuration.replay = TrawlConfiguration.Replay(entries: [document])
            let media = try await Self.resolve("http://site.test/", configuration)
            #expect(media.map(\.url) == ["https://media.test/fallback.gif"])
            #expect(witness.requests.isEmpty)
        }

        @Test func aBodyOverTheSizeCapIsRecordedWithoutIt() async throws {
            try requireBrowser()
            let big = String(repeating: "x", count: 40_000)
            let server = try LoopbackServer(keepsAlive: true) { request in
                switch request.path {
                case "/":
                    .html(
                        #"<html><body><div id="root"></div><script>fetch('/big').then(r => r.text()).then(t => { root.textContent = t.length; });</script></body></html>"#
                    )
                case "/big": .json(#"{"filler":"\#(big)"}"#)
                default: .status(404)
                }
            }
            defer { server.shutdown() }
            let recorder = HARRecorder()
            var configuration = Self.configuration(port: server.port)
            configuration.browserConfiguration.maxBodyBytes = 16_000
            configuration.recorder = recorder
            _ = try? await Self.resolve("http://site.test/", configuration)
            let entries = await recorder.recorded
            let page = try #require(entries.first { $0.request.url == "http://site.test/" })
            #expect(page.response.content.text?.contains("fetch('/big')") == true)
            let oversized = try #require(entries.first { $0.request.url == "http://site.test/big" })
            #expect(oversized.response.status == 200)
            #expect(oversized.response.content.size == 0)
            #expect(oversized.response.content.comment?.contains("size cap") == true)
        }

        /// The repository's browser cases start a browser when replayed; every other case replays
        /// without one, whatever the configuration asks.
        @Test func onlyCasesThatNeedABrowserStartOneWhenReplayed() async throws {
            try requireBrowser()
            let cases = try RecordedCase.all(in: Corpus.repositoryRoot.appendingPathComponent("Recordings"))
            let browserCases = cases.filter(\.recordingCase.browser)
            #expect(Set(browserCases.map(\.site)).count >= 3)
            for recorded in browserCases {
                let run = await CaseRun(recorded)
                #expect(run.verdict.outcome == .pass, "\(recorded.name): \(run.verdict)")
                #expect(!run.media.isEmpty && run.media.allSatisfy { $0.provenance.origin.isRendered }, "\(recorded.name)")
            }
            var always = TrawlConfiguration()
            always.browser = .always
            let staticCase = try #require(cases.first { $0.name == "giphy/gif-page-dancing-cat" })
            let run = await CaseRun(staticCase, configuration: always)
            #expect(run.verdict.outcome == .pass)
            #expect(run.media.allSatisfy { !$0.provenance.origin.isRendered })
        }

        @Test func interceptorsDecideInOrderAndTheFirstAnswerWins() async throws {
            let site = try BrowserSite { request in
                switch request.path {
                case "/":
                    .html(
                        """
                        <html><body><div id="out"></div><script>
                        Promise.all(['/a', '/b', '/c'].map(p => fetch(p).then(r => r.text(), () => 'failed')))
                          .then(t => { out.textContent = t.join(','); });
                        </script></body></html>
                        """)
                default: .json(#"{"from":"network"}"#)
                }
            }
            let seen = Counter()
            let pool = BrowserPool(
                configuration: site.pool.configuration,
                interceptors: [
                    RequestInterceptor { request in
                        await seen.add(request.url.path)
                        return request.url.path == "/a" ? .fail(.accessDenied) : .next
                    },
                    RequestInterceptor { request in
                        request.url.path == "/b"
                            ? .fulfill(InterceptedResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Data("fulfilled".utf8))) : .next
                    },
                ])
            let page = try await pool.render(FetchRequest(url: site.url("/")))
            await pool.shutdown()
            await site.close()
            let html = String(decoding: page.html, as: UTF8.self)
            #expect(html.contains(#"failed,fulfilled,{"from":"network"}"#))
            #expect(Set(await seen.paths) == ["/", "/a", "/b", "/c"])
            #expect(!site.server.requests.contains { $0.path == "/a" || $0.path == "/b" })
        }
    }
}

/// Paths an interceptor saw, in order of arrival.
actor Counter {
    private(set) var paths: [String] = []
    func add(_ path: String) { paths.append(path) }
}
