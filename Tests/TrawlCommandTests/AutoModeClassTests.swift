import Foundation
import Testing
import TrawlTesting

/// JavaScript pages resolved with `--browser auto` (the default), with real Chromium: what the
/// static pass already has is not rendered, and a rendered page's placeholders and pixels are
/// never its media.
@Suite("Auto mode on JavaScript pages", .timeLimit(.minutes(2)), .tags(.process, .browser))
struct AutoModeClassTests {
    static func resolve(_ path: String, _ respond: @escaping LoopbackServer.Handler) async throws -> CommandRun {
        let server = try LoopbackServer(keepsAlive: true, handler: respond)
        defer { server.shutdown() }
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        return try await CommandRun.run(
            binary,
            [
                "resolve", "--browser", "auto", "--json", "--connect-to", "::127.0.0.1:\(server.port)", "--plain-http", "--retries", "0",
                "https://site.test\(path)",
            ])
    }

    static func lines(_ run: CommandRun) throws -> [[String: Any]] {
        try run.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func aPageWhoseStateCarriesItsMediaIsNotRendered() async throws {
        // An empty app root and a bundle: script-driven by every sign, but its __NEXT_DATA__
        // already names the clip. The bundle would draw something else if it ran.
        let run = try await Self.resolve("/clip/k3x9") { request in
            switch request.path {
            case "/clip/k3x9":
                .html(
                    """
                    <html><head><title>Clip</title></head><body><div id="__next"></div>
                    <script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"clip":{"title":"Reaction",
                      "gif":"https://media.test/c/preview.gif","mp4":"https://media.test/c/720.mp4","width":480,"height":270}}}}</script>
                    <script src="/app.js"></script></body></html>
                    """)
            case "/app.js":
                .ok(
                    headers: [("Content-Type", "text/javascript")],
                    body: Data("document.getElementById('__next').innerHTML = '<video src=\"https://media.test/rendered.mp4\"></video>';".utf8))
            default: .status(404)
            }
        }
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Self.lines(run)
        #expect(lines.map { $0["loader"] as? String } == ["static"], "\(run.stdout)")
        var urls = Set<String>()
        for line in lines {
            if let url = line["url"] as? String { urls.insert(url) }
            for rendition in line["renditions"] as? [[String: Any]] ?? [] { if let url = rendition["url"] as? String { urls.insert(url) } }
        }
        #expect(urls == ["https://media.test/c/preview.gif", "https://media.test/c/720.mp4"])
    }

    @Test func aRenderedPagesSharedPlaceholderIsNeverMediaNorARendition() async throws {
        let run = try await Self.resolve("/gallery") { request in
            switch request.path {
            case "/gallery":
                .html(
                    """
                    <html><body><div id="app"></div><script>
                    const names = ['one', 'two', 'three'];
                    app.innerHTML = names.map(n => '<img src="/img/blank.gif" data-src="https://media.test/g/' + n + '.gif" width="400" height="300">').join('');
                    </script></body></html>
                    """)
            default: .status(404)
            }
        }
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Self.lines(run)
        #expect(
            lines.compactMap { $0["url"] as? String } == ["https://media.test/g/one.gif", "https://media.test/g/two.gif", "https://media.test/g/three.gif"],
            "\(run.stdout)")
        #expect(lines.allSatisfy { ($0["renditions"] as? [Any])?.isEmpty ?? true })
    }

    @Test func aPageWithOnlyTrackingPixelsHasNoMedia() async throws {
        let run = try await Self.resolve("/empty") { request in
            switch request.path {
            case "/empty":
                .html(
                    """
                    <html><body><div id="root"></div><noscript><img src="https://px.test/ns.gif?id=1" width="1" height="1"></noscript>
                    <script>root.innerHTML = '<p>Nothing to see</p><img src="https://media.test/seen.gif" width="1" height="1" alt="">';</script>
                    </body></html>
                    """)
            default: .status(404)
            }
        }
        #expect(run.status == 1, "a page with no media exits 1: \(run.stdout) \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
