import Foundation
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlHTML
import TrawlParsers
import TrawlTesting

extension BrowserTests {
    /// Media inside iframes: a same-origin frame (read through the page) and another site's frame,
    /// which runs in a renderer of its own (an out-of-process iframe, attached as a child target).
    @Suite struct FrameTests {
        /// `site.test` embeds a frame of its own and one of `player.test`; both hosts reach this server.
        static func pages(_ request: TestRequest) -> TestResponse {
            let host = request.headers.first { $0.key.lowercased() == "host" }?.value ?? ""
            switch (host.hasPrefix("player.test"), request.path) {
            case (false, "/"):
                return .html(
                    """
                    <html><head><title>Embeds</title></head><body><h1>Two embeds</h1>
                    <iframe src="/frame.html"></iframe>
                    <iframe src="http://player.test/embed/42"></iframe>
                    </body></html>
                    """)
            case (false, "/frame.html"):
                return .html(
                    """
                    <html><body><div id="slot"></div><script>
                    slot.innerHTML = '<img src="https://media.test/same-origin.gif" width="200" height="100">';
                    </script></body></html>
                    """)
            case (true, "/embed/42"):
                return .html(
                    """
                    <html><body><div id="player"></div><script>
                    fetch('/api/clip/42').then(r => r.json()).then(d => {
                      player.innerHTML = '<video src="' + d.clip.mp4 + '" poster="https://media.test/poster.jpg"></video>';
                    });
                    </script></body></html>
                    """)
            case (true, "/api/clip/42"): return .json(#"{"clip":{"mp4":"https://media.test/cross-site.mp4","gif":"https://media.test/cross-site-api.gif"}}"#)
            default: return .status(404)
            }
        }

        /// With one renderer per page (the default) the other site's frame runs in the page's
        /// process; with sites isolated it is an out-of-process frame, a child target.
        @Test(arguments: [false, true])
        func mediaInSameOriginAndCrossSiteIframesAreFound(isolatingSites: Bool) async throws {
            try requireBrowser()
            let server = try LoopbackServer(keepsAlive: true, handler: Self.pages)
            let recorder = HARRecorder()
            var configuration = RecordReplayTests.configuration(port: server.port)
            configuration.browserConfiguration.isolatesSites = isolatingSites
            configuration.recorder = recorder
            let media = try await RecordReplayTests.resolve("http://site.test/", configuration)
            let requests = server.requests
            server.shutdown()
            let urls = Set(media.map(\.url))
            #expect(urls.contains("https://media.test/same-origin.gif"))
            // The frame's API answer names its clip's gif and mp4: one media, out as the answer
            // arrived (the mp4 a rendition of it), before the frame's DOM showed the mp4 again.
            #expect(media.flatMap(\.allURLs).contains("https://media.test/cross-site.mp4"))
            #expect(media.allSatisfy { $0.page == "http://site.test/" })
            #expect(requests.contains { $0.path == "/api/clip/42" })

            // Its requests were paused like the page's: recorded, and answered from the recording.
            let recorded = await recorder.recorded.map(\.request.url)
            #expect(recorded.contains("http://player.test/api/clip/42"))
            let archive = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-frames-\(UUID().uuidString).har")
            defer { try? FileManager.default.removeItem(at: archive) }
            try await recorder.write(to: archive)
            var replay = RecordReplayTests.configuration(port: server.port)
            replay.browserConfiguration.isolatesSites = isolatingSites
            replay.loader = LoaderConfiguration()
            replay.replay = try TrawlConfiguration.Replay(path: archive)
            let replayed = try await RecordReplayTests.resolve("http://site.test/", replay)
            #expect(Set(replayed.map(\.url)) == urls)
        }

        @Test func anOutOfProcessFramesRequestsAndDOMAreThePages() async throws {
            let site = try BrowserSite(handler: Self.pages)
            var isolated = site.pool.configuration
            isolated.isolatesSites = true
            let pool = BrowserPool(configuration: isolated)
            let page = try await pool.render(FetchRequest(url: site.url("/")))
            await pool.shutdown()
            await site.close()
            // The frame's XHR, seen on its own target's session, with its body.
            let xhr = try #require(page.responses.first { $0.info.url.absoluteString == "http://player.test/api/clip/42" })
            #expect(String(decoding: xhr.body, as: UTF8.self).contains("cross-site.mp4"))
            #expect(xhr.info.origin == .browserXHR)
            let frames = page.frames.map(\.info.url.absoluteString)
            #expect(Set(frames) == ["http://site.test/frame.html", "http://player.test/embed/42"])
            let player = try #require(page.frames.first { $0.info.url.host == "player.test" })
            #expect(String(decoding: player.body, as: UTF8.self).contains(#"<video src="https://media.test/cross-site.mp4""#))
            // Its blocked poster is recorded like the page's own.
            #expect(page.blockedRequests.contains("https://media.test/poster.jpg"))
        }

        @Test func srcdocFramesAreSnapshottedAtTheirParentsURL() async throws {
            let site = try BrowserSite { request in
                request.path == "/"
                    ? .html(
                        """
                        <html><head><title>Inline embeds</title></head><body>
                        <iframe srcdoc="<video src='/clips/inline.mp4' poster='/clips/inline.jpg'></video>"></iframe>
                        <div id="slot"></div><script>
                        const f = document.createElement('iframe');
                        f.srcdoc = '<img src="https://media.test/built-srcdoc.gif" width="240" height="135">';
                        slot.appendChild(f);
                        </script></body></html>
                        """) : .status(404)
            }
            let page = try await site.pool.render(FetchRequest(url: site.url("/")))
            let environment = Environment(
                transport: BrowserTransport(pool: site.pool), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
            var media: [Media] = []
            for try await set in SearchProvider(environment: environment).results(for: Request(site.url("/").absoluteString)) {
                media += set.media
            }
            await site.close()
            // Each srcdoc frame is a snapshot of its own, at the page's URL (their base URL).
            #expect(page.frames.count == 2)
            #expect(page.frames.allSatisfy { $0.info.url.absoluteString == "http://site.test/" && $0.info.origin == .domSnapshot })
            let frames = page.frames.map { String(decoding: $0.body, as: UTF8.self) }
            #expect(frames.contains { $0.contains(#"<video src="/clips/inline.mp4""#) })
            #expect(frames.contains { $0.contains(#"<img src="https://media.test/built-srcdoc.gif""#) })
            // Relative URLs in an srcdoc frame resolve against the page.
            #expect(Set(media.map(\.url)) == ["http://site.test/clips/inline.mp4", "https://media.test/built-srcdoc.gif"])
        }
    }
}
