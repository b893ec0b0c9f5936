import Foundation
import Testing
import TrawlBatch
import TrawlTesting

/// A hash-routed app reads its route from `location.hash`: the fragment is part of what a line
/// asks for when the page is rendered (libcurl never sends it; the browser must navigate to it).
@Suite("Batch keeps URL fragments", .timeLimit(.minutes(3)))
struct FragmentTests {
    /// One page, a different GIF per route; the default route shows the app's list.
    static let app = """
        <html><head><title>GIF app</title></head><body><div id="app"></div><script>
        const media = (name) => 'https://media.test/' + name + '.' + 'gif';
        const route = location.hash.match(/^#\\/gif\\/(\\w+)$/);
        const names = route ? [route[1]] : ['list-one', 'list-two'];
        document.getElementById('app').innerHTML = names.map((n) => '<img src="' + media(n) + '" width="300" height="200">').join('');
        </script></body></html>
        """

    @Test(.tags(.process, .browser)) func twoRoutesOfOneAppAreTwoJobsWithTheirOwnGIFs() async throws {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        guard FileManager.default.isExecutableFile(atPath: "/usr/lib/chromium/chromium-headless-shell") else {
            Issue.record("Chromium's headless shell is missing: run `make deps`")
            return
        }
        let fixture = try BatchFixture(hosts: ["site.test"]) { request in
            request.path == "/app" ? .html(Self.app) : .status(404)
        }
        defer {
            fixture.server.shutdown()
            try? FileManager.default.removeItem(at: fixture.folder)
        }
        try fixture.writeList(["http://site.test/app#/gif/abc", "http://site.test/app#/gif/xyz"])
        let run = try await CommandRun.run(
            binary,
            [
                "batch", fixture.list.path, "--out", fixture.output.path, "--store", fixture.store, "--quiet",
                "--browser", "always", "--quiet-window", "200", "--connect-to", fixture.connectTo[0],
            ], timeLimit: .seconds(120))
        #expect(run.status == 0, "\(run.stderr)")
        let results = try fixture.results().sorted { $0.input < $1.input }
        #expect(results.map(\.input) == ["http://site.test/app#/gif/abc", "http://site.test/app#/gif/xyz"], "\(run.stderr)")
        #expect(results.map(\.url) == ["http://site.test/app#/gif/abc", "http://site.test/app#/gif/xyz"])
        #expect(results.map { $0.media?.map(\.url) ?? [] } == [["https://media.test/abc.gif"], ["https://media.test/xyz.gif"]])
    }

    /// Without a browser nothing reads a fragment: lines that differ only by theirs are one job.
    @Test func withoutABrowserFragmentsCoalesce() async throws {
        let fixture = try BatchFixture(hosts: ["site.test"]) { request in
            request.path == "/page" ? BatchFixture.page(request.path) : .status(404)
        }
        defer {
            fixture.server.shutdown()
            try? FileManager.default.removeItem(at: fixture.folder)
        }
        try fixture.writeList(["http://site.test/page#/gif/abc", "http://site.test/page#/gif/xyz", "http://site.test/page"])
        var configuration = fixture.configuration()
        configuration.resolve.browser = .never
        let report = try await fixture.run(configuration)
        #expect(report.summary.progress[.done] == 1)
        let results = try fixture.results()
        #expect(results.map(\.url) == ["http://site.test/page"])
        #expect(results.first?.duplicates == 2)
        #expect(fixture.server.requests.filter { $0.path == "/page" }.count == 1)
    }
}

/// `trawl batch --probe`: each media URL checked before it is written.
@Suite("Batch probes media", .timeLimit(.minutes(2)), .tags(.process))
struct BatchProbeTests {
    @Test func probedMediaCarryTheirFactsAndTheDeadAreDropped() async throws {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        let gif = MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5)
        let fixture = try BatchFixture(hosts: ["site.test", "media.test"]) { request in
            switch request.path {
            case "/page":
                .html(
                    #"<html><body><img src="http://media.test/cat.gif" width="400" height="300"><img src="http://media.test/gone.gif" width="400" height="300"></body></html>"#
                )
            case "/cat.gif": .ok(headers: [("Content-Type", "image/gif")], body: Data(gif))
            default: .status(404)
            }
        }
        defer {
            fixture.server.shutdown()
            try? FileManager.default.removeItem(at: fixture.folder)
        }
        try fixture.writeList(["http://site.test/page"])
        var arguments = ["batch", fixture.list.path, "--out", fixture.output.path, "--store", fixture.store, "--quiet", "--browser", "never", "--probe"]
        for target in fixture.connectTo { arguments += ["--connect-to", target] }
        let run = try await CommandRun.run(binary, arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let media = try fixture.results().first?.media ?? []
        #expect(media.map(\.url) == ["http://media.test/cat.gif"], "\(run.stderr)")
        #expect(media.first?.probe?.frames == 12 && media.first?.probe?.width == 480 && media.first?.probe?.dead == false)
    }
}
