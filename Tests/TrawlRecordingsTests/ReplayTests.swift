import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlRecordings
import TrawlTesting

@Suite("Replay", .timeLimit(.minutes(3)))
struct ReplayTests {
    static let page = #"<html><head><meta property="og:image" content="https://media.example/a.gif"></head></html>"#

    func transport(_ entries: [HAREntry], fallback: (any PayloadTransport)? = nil) -> ReplayTransport {
        ReplayTransport(entries: entries, sources: ["test.har"], fallback: fallback)
    }

    @Test func aMissingEntryNamesTheRequestAndTheClosestRecordings() throws {
        let replay = transport([
            HARImporter.entry(body: Data(Self.page.utf8), url: "https://site.example/gifs/cat-1"),
            HARImporter.entry(body: Data(Self.page.utf8), url: "https://site.example/gifs/dog-2"),
            HARImporter.entry(body: Data(Self.page.utf8), url: "https://other.example/x"),
        ])
        #expect {
            try replay.payload(for: FetchRequest(url: URL(string: "https://site.example/gifs/cat-9")!))
        } throws: { error in
            guard let error = error as? RecordingError else { return false }
            return error.code == .noMatchingEntry && error.subject == "GET https://site.example/gifs/cat-9"
                && error.closest.first == "https://site.example/gifs/cat-1" && error.description.contains("test.har")
        }
    }

    /// Without a fallback, an unrecorded request fails and the server behind its URL sees nothing.
    @Test func replayNeverTouchesTheNetworkByAccident() async throws {
        let server = try LoopbackServer(files: ["/page": .html(Self.page)])
        defer { server.shutdown() }
        let url = server.url("/page").absoluteString
        let replay = TrawlConfiguration.Replay(entries: [HARImporter.entry(body: Data(Self.page.utf8), url: "https://elsewhere.example/")])
        let provider = SearchProvider(.init(replay: replay))
        await #expect(throws: RecordingError.self) {
            for try await _ in provider.results(for: Request(url)) {}
        }
        #expect(server.requests.isEmpty)

        // The same request with `--fallback network` goes live.
        let live = SearchProvider(.init(replay: TrawlConfiguration.Replay(entries: replay.entries, fallback: .network)))
        var media: [String] = []
        for try await set in live.results(for: Request(url)) { media += set.media.map(\.url) }
        #expect(media == ["https://media.example/a.gif"])
        #expect(server.requests.count == 1)
    }

    @Test func volatileParametersAndOrderDoNotMatter() throws {
        let replay = transport([HARImporter.entry(body: Data("{}".utf8), url: "https://api.example/v1/search?q=cats&limit=2&cid=abc&rid=1")])
        let payload = try replay.payload(for: FetchRequest(url: URL(string: "https://API.example:443/v1/search?limit=2&q=cats&rid=2&_=99#frag")!))
        #expect(payload.info.status == 200)
        #expect(throws: RecordingError.self) {
            try replay.payload(for: FetchRequest(url: URL(string: "https://api.example/v1/search?q=dogs&limit=2")!))
        }
    }

    @Test func repeatedRequestsGetTheRecordedSequenceThenTheLast() throws {
        let url = "https://api.example/poll"
        let replay = transport([
            HARImporter.entry(body: Data("1".utf8), url: url), HARImporter.entry(body: Data("2".utf8), url: url),
        ])
        let request = FetchRequest(url: URL(string: url)!)
        let bodies = try (0..<3).map { _ in String(decoding: try replay.payload(for: request).body, as: UTF8.self) }
        #expect(bodies == ["1", "2", "2"])
    }

    @Test func recordingThenReplayingGivesTheSameResults() async throws {
        let server = try LoopbackServer(files: ["/page": .html(Self.page)])
        defer { server.shutdown() }
        let recorder = HARRecorder()
        let url = server.url("/page").absoluteString
        var live: [String] = []
        for try await set in SearchProvider(.init(recorder: recorder)).results(for: Request(url)) { live += set.media.map(\.url) }
        let har = await recorder.har()
        server.shutdown()
        var replayed: [String] = []
        let provider = SearchProvider(.init(replay: TrawlConfiguration.Replay(entries: har.log.entries)))
        for try await set in provider.results(for: Request(url)) { replayed += set.media.map(\.url) }
        #expect(!live.isEmpty)
        #expect(replayed == live)
        #expect(HARValidator.problems(in: try har.encoded()).isEmpty)
    }
}
