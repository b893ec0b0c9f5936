import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlRecordings
import TrawlTesting

/// The running time a site states reaches ``Media/durationSeconds``, read from the recorded
/// payloads (and real saved responses of the dev set) through the whole pipeline.
@Suite("Site-stated durations")
struct DurationTests {
    static let recordings = Corpus.repositoryRoot.appendingPathComponent("Recordings")

    /// Each case's first media and the duration its payload states, in seconds.
    static let cases: [(name: String, seconds: Double)] = [
        ("redgifs/watch-api-token", 8.4),  // `gif.duration`
        ("redgifs/search-page1", 6.0),  // each item's `duration`
        ("coub/view-api", 9.92),  // the coub's `duration`
        ("streamable/api-video", 10.0),  // `files.mp4.duration` (the API states it per file)
        ("streamable/page-vkc0y-2018", 21.067),  // the page's `videoObject.duration`
        ("tiktok/video-rehydration", 11),  // `itemStruct.video.duration`
        ("tenor/search-cats-page1", 2.1),  // `media_formats.gif.duration`
        ("reddit/post-reddit-video", 9),  // `secure_media.reddit_video.duration`
        ("reddit/vreddit-dash-gif", 15.034),  // `<MPD mediaPresentationDuration="PT15.034S">`
        ("fediverse/status-gifv", 4.0),  // `meta.original.duration`
    ]

    @Test(arguments: cases.map(\.name))
    func recordedCaseStatesItsDuration(_ name: String) async throws {
        let recorded = try #require(try RecordedCase.all(in: Self.recordings).first { $0.name == name })
        let run = await CaseRun(recorded)
        let expected = try #require(Self.cases.first { $0.name == name }?.seconds)
        let first = try #require(run.media.first, "\(name): \(run.verdict)")
        #expect(first.durationSeconds == expected, "\(name)")
        // Carried into the JSON line, as `durationSeconds`.
        let line = TrawlJSON.line(MediaLine(first, input: recorded.recordingCase.input, degraded: nil))
        #expect(line.contains("\"durationSeconds\":\(Self.json(expected))"), "\(line)")
    }

    /// Real saved responses: an X v1.1 video status (`video_info.duration_millis`), a Mastodon
    /// video (`meta.original.duration`).
    @Test(arguments: [
        ("twitter/api-1.1-status-778307811012780032-video.json", 62.996),
        ("fediverse/api-v1-status-117020576440066974-video.json", 7.3),
    ])
    func devSetResponseStatesItsDuration(_ file: String, _ seconds: Double) async throws {
        let entry = try #require(try DevSet.entries().first { $0.file == file })
        let replay = TrawlConfiguration.Replay(entries: [HARImporter.entry(body: try Data(contentsOf: entry.path), url: entry.url, fileName: file)])
        var media: [Media] = []
        for try await set in SearchProvider(.init(replay: replay)).results(for: Request(entry.url)) { media += set.media }
        #expect(media.first?.durationSeconds == seconds, "\(media.map(\.url))")
    }

    /// An animated GIF's `video_info` states no length: none is made up.
    @Test func xAnimatedGIFHasNoDuration() async throws {
        let recorded = try #require(try RecordedCase.all(in: Self.recordings).first { $0.name == "x/status-animated-gif" })
        let run = await CaseRun(recorded)
        #expect(!run.media.isEmpty)
        #expect(run.media.allSatisfy { $0.durationSeconds == nil })
    }

    static func json(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
