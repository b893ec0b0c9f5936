import Foundation
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlRecordings
import TrawlSmoke
import TrawlTesting

extension BrowserTests {
    /// A live smoke case that says it needs a browser: `trawl smoke --record` renders it and records
    /// the browser's requests; `trawl smoke --replay` then replays it through the browser, offline.
    @Suite struct SmokeBrowserCaseTests {
        @Test func aLiveBrowserCaseIsRecordedThroughTheBrowserAndReplaysOffline() async throws {
            try requireBrowser()
            let server = try LoopbackServer(keepsAlive: true, handler: RecordReplayTests.page)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-smoke-browser-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let site = folder.appendingPathComponent("scripted")
            try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
            // A live case (not synthetic), never recorded: the smoke run goes to the "site".
            try RecordingCase(
                input: "http://site.test/old", browser: true,
                expect: .init(minResults: 1, media: [.exact("https://media.test/recorded.gif")])
            ).write(to: site.appendingPathComponent("gallery.case.json"))

            var live = SmokeOptions()
            live.record = true
            live.connectTo = ["::127.0.0.1:\(server.port)"]
            live.browser = .never  // the case asks for a browser: it gets one all the same
            live.browserConfiguration = BrowserConfiguration(quietWindow: .milliseconds(300), pageBudget: .seconds(8), commandTimeout: .seconds(5))
            let first = try await SmokeRunner(options: live).run(recordings: folder)
            server.shutdown()
            let result = try #require(first.first)
            #expect(result.status == .pass, "\(result.reasons)")
            #expect(result.rerecorded)
            let har = try HAR.read(from: site.appendingPathComponent("gallery.har"))
            #expect(har.log.entries.contains { $0.origin == .browserXHR })

            var replay = SmokeOptions()
            replay.replay = true
            replay.browserConfiguration = live.browserConfiguration
            let replayed = try await SmokeRunner(options: replay).run(recordings: folder)
            #expect(replayed.first?.status == .pass, "\(replayed.first?.reasons ?? [])")
            #expect(replayed.first?.media.map(\.url) == ["https://media.test/recorded.gif"])
        }
    }
}
