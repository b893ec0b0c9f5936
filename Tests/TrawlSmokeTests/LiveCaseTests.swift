import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlRecordings
import TrawlSmoke
import TrawlTesting

/// A live case (loose expectations, no recording yet) run live against a loopback server that
/// answers for giphy.com through `--connect-to` and plain HTTP: pass while the page keeps its
/// shape, degraded when only a fallback finds the GIF, fail when the media move to another host.
@Suite("Live cases: loose expectations", .timeLimit(.minutes(5)))
struct LiveCaseTests {
    static let repository = Corpus.repositoryRoot.appendingPathComponent("Recordings")
    static let liveCase = "giphy/live-gif-page-the-office-no"

    /// A folder holding only the repository's live case, as it is there: no recording.
    func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-live-\(UUID().uuidString)")
        let source = RecordedCase.files(named: Self.liveCase, in: Self.repository)
        let target = RecordedCase.files(named: Self.liveCase, in: folder)
        try FileManager.default.createDirectory(at: target.caseFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source.caseFile, to: target.caseFile)
        return folder
    }

    /// The page a synthetic Giphy case recorded, as text.
    func page(_ name: String) throws -> String {
        let har = try HAR.read(from: RecordedCase.files(named: name, in: Self.repository).archive)
        let body = try #require(har.log.entries.first?.response.content.body)
        return String(decoding: body, as: UTF8.self)
    }

    /// Runs the live case live, every host answered by a server that serves `page` for any path.
    func run(serving page: String, in folder: URL, record: Bool = false) async throws -> SmokeResult {
        let server = try LoopbackServer { _ in .html(page) }
        defer { server.shutdown() }
        var options = SmokeOptions()
        options.plainHTTP = true
        options.connectTo = ["::127.0.0.1:\(server.port)"]
        options.timeout = .seconds(20)
        options.record = record
        let results = try await SmokeRunner(options: options).run(recordings: folder)
        #expect(server.requests.allSatisfy { $0.header("host")?.hasPrefix("giphy.com") == true })
        return try #require(results.first, "the live case ran")
    }

    /// `smoke --probe`: the case's media checked live; a dead one fails the case, and the probes
    /// stay out of the recording `--record` writes.
    @Test(arguments: [true, false])
    func probeFailsACaseWhoseMediaAreDead(mediaAlive: Bool) async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = try page("giphy/gif-page-dancing-cat")
        let gif = MediaBytes.gif(width: 480, height: 270, frames: 3)
        let server = try LoopbackServer { request in
            guard request.header("host")?.hasPrefix("giphy.com") != true else { return .html(page) }
            return mediaAlive
                ? .ok(status: 206, headers: [("Content-Type", "image/gif"), ("Content-Range", "bytes 0-\(gif.count - 1)/\(gif.count)")], body: Data(gif))
                : .status(404)
        }
        defer { server.shutdown() }
        var options = SmokeOptions()
        options.plainHTTP = true
        options.connectTo = ["::127.0.0.1:\(server.port)"]
        options.timeout = .seconds(20)
        options.record = true
        options.probe = MediaProber.Options()
        let result = try #require(try await SmokeRunner(options: options).run(recordings: folder).first)
        let probes = server.requests.filter { $0.header("range") != nil }
        #expect(!probes.isEmpty)
        #expect(!result.media.isEmpty && result.media.allSatisfy { $0.probe != nil }, "\(result.media)")
        if mediaAlive {
            #expect(result.status == .pass, "\(result.reasons)")
            #expect(result.media.allSatisfy { $0.probe?.dead == false && $0.probe?.format == "gif" })
            let recorded = try #require(try RecordedCase.all(in: folder).first)
            let entries = try HAR.read(from: recorded.archive).log.entries
            #expect(!entries.isEmpty && entries.allSatisfy { $0.request.headers.allSatisfy { $0.name.lowercased() != "range" } })
        } else {
            #expect(result.status == .fail)
            #expect(result.reasons.contains { $0.hasPrefix("dead media: ") && $0.hasSuffix("(HTTP 404)") }, "\(result.reasons)")
            #expect(result.media.allSatisfy { $0.probe?.dead == true })
        }
    }

    @Test func theRepositoryLiveCaseHasNoRecordingAndIsLoose() throws {
        let recorded = try #require(try RecordedCase.all(in: Self.repository).first { $0.name == Self.liveCase })
        #expect(!recorded.hasRecording && !recorded.recordingCase.synthetic)
        #expect(recorded.recordingCase.expect.isLoose && recorded.recordingCase.expect.media.isEmpty)
    }

    @Test func passesWhileTheMediaAreOnTheSitesHostAndRecordsItsFirstRecording() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await run(serving: try page("giphy/gif-page-dancing-cat"), in: folder, record: true)
        #expect(result.status == .pass, "\(result.reasons)")
        #expect(result.reasons.isEmpty)
        #expect(result.media.contains { $0.url.hasPrefix("https://media2.giphy.com/") })
        // The passing live run wrote the case's first recording, and it replays to the same verdict.
        #expect(result.rerecorded)
        let recorded = try #require(try RecordedCase.all(in: folder).first)
        #expect(recorded.hasRecording)
        var replay = SmokeOptions()
        replay.replay = true
        let replayed = try await SmokeRunner(options: replay).run(recordings: folder)
        #expect(replayed.map(\.status) == [.pass], "\(replayed.map(\.reasons))")
    }

    @Test func degradedWhenOnlyAFallbackFindsTheGIF() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The inline object renamed: the Giphy parser finds nothing, OpenGraph finds the mp4.
        let result = try await run(serving: try page("giphy/gif-page-drift"), in: folder)
        #expect(result.status == .degraded, "\(result.reasons)")
        #expect(result.reasons.contains { $0.contains("giphy-page") }, "\(result.reasons)")
        #expect(result.media.contains { $0.url.hasPrefix("https://media3.giphy.com/") })
    }

    @Test func failsWhenTheMediaMoveToAnotherHost() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let moved = try page("giphy/gif-page-dancing-cat").replacingOccurrences(of: "media2.giphy.com", with: "cdn.gifs.example")
        let result = try await run(serving: moved, in: folder)
        #expect(result.status == .fail)
        #expect(result.reasons.contains { $0.contains("gif or mp4 on media*.giphy.com") && $0.contains("cdn.gifs.example") }, "\(result.reasons)")
        #expect(!result.rerecorded)
    }

    /// The live cases whose pages the corpus saved (real responses of those very URLs), replayed
    /// from them: the loose expectations fit what the sites really serve.
    @Test func theLiveCasesFitTheSavedRealPages() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-live-corpus-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let entries = try Corpus.siteEntries()
        var saved: [String] = []
        for recorded in try RecordedCase.all(in: Self.repository) where !recorded.recordingCase.synthetic {
            guard let entry = entries.first(where: { $0.url == recorded.recordingCase.input }) else { continue }
            let target = RecordedCase.files(named: recorded.name, in: folder)
            try recorded.recordingCase.write(to: target.caseFile)
            try HARImporter.har(file: entry.path, url: entry.url).write(to: target.archive)
            saved.append(recorded.name)
        }
        // `Corpus.siteEntries()` throws when the corpus is missing: these cases are always there.
        try #require(saved.count >= 5, "\(saved)")
        var options = SmokeOptions()
        options.replay = true
        let results = try await SmokeRunner(options: options).run(recordings: folder)
        for result in results {
            print("saved real page of \(result.name): \(result.status.rawValue) \(result.explanation)")
            #expect(result.status == .pass, "\(result.name): \(result.reasons)")
        }
    }

    /// The live cases of two sites, search cases included (their keys set), against a network
    /// that refuses every connection and then against one where every server answers 503:
    /// each case skipped, unreachable or down, by error code and HTTP status.
    @Test func searchAndPageCasesAreSkippedWhenTheSitesAreUnreachableOrDown() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        var options = SmokeOptions(search: TrawlConfiguration.Search(giphyKey: "test-key", tenorKey: "test-key"))
        options.sites = ["giphy", "tenor"]
        options.retries = 0
        options.plainHTTP = true
        options.connectTo = ["::127.0.0.1:\(port)"]
        let live = try RecordedCase.all(in: Self.repository).filter { !$0.recordingCase.synthetic && options.sites.contains($0.site) }
        let unreachable = try await SmokeRunner(options: options).run(recordings: Self.repository)
        #expect(unreachable.count == live.count && live.contains { $0.recordingCase.input.hasPrefix("!giphy") })
        for result in unreachable {
            #expect(
                result.status == .skipped && result.reasons.first?.hasPrefix("site unreachable: connection failed") == true, "\(result.name): \(result.reasons)"
            )
        }

        let down = try LoopbackServer { _ in .status(503) }
        defer { down.shutdown() }
        options.connectTo = ["::127.0.0.1:\(down.port)"]
        let serverErrors = try await SmokeRunner(options: options).run(recordings: Self.repository)
        for result in serverErrors {
            #expect(result.status == .skipped && result.reasons.first?.hasPrefix("site down:") == true, "\(result.name): \(result.reasons)")
        }
        #expect(SmokeReport(results: serverErrors).exitStatus(failOn: .degraded) == SmokeReport.nothingChecked)
    }
}
