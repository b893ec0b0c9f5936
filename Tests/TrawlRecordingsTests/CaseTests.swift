import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlRecordings
import TrawlTesting

/// The repository's own cases, each through the whole pipeline in the replay environment.
@Suite("Recorded cases")
struct RecordedCaseTests {
    static let all = (try? RecordedCase.all(in: Corpus.repositoryRoot.appendingPathComponent("Recordings"))) ?? []
    /// The replay cases: every case with a recording.
    static let cases = all.filter(\.hasRecording)
    /// Live cases not recorded yet: they run against the sites (`trawl smoke`), not here.
    static let liveOnly = all.filter { !$0.hasRecording }

    @Test func thereAreCases() throws {
        // Reading them for real, so that a malformed case file fails here by name.
        let cases = try RecordedCase.all(in: Corpus.repositoryRoot.appendingPathComponent("Recordings"))
        #expect(cases.count >= 7)
        #expect(cases.contains { $0.recordingCase.expect.maxResults == 0 }, "a page with no media")
        #expect(cases.contains { $0.recordingCase.browser && $0.hasRecording }, "a page that needs the browser")
    }

    @Test(arguments: cases.filter { !$0.recordingCase.browser })
    func caseResolvesAsExpected(_ recorded: RecordedCase) async {
        await Self.expectItsVerdict(recorded)
    }

    /// The cases of pages built by scripts (`"browser": true`): the replay starts Chromium.
    @Test(.tags(.browser), arguments: cases.filter(\.recordingCase.browser))
    func browserCaseResolvesAsExpected(_ recorded: RecordedCase) async {
        await Self.expectItsVerdict(recorded)
    }

    static func expectItsVerdict(_ recorded: RecordedCase) async {
        let run = await CaseRun(recorded)
        let allowed: Set<CaseVerdict.Outcome> = recorded.recordingCase.expect.status == .pass ? [.pass] : [.pass, .degraded]
        #expect(allowed.contains(run.verdict.outcome), "\(recorded.name): \(run.verdict)")
    }

    /// Skipped here, by name: a live case without a recording has nothing to replay until a
    /// passing `trawl smoke --record` writes one; then it is a replay case like the others.
    @Test(arguments: liveOnly)
    func liveCaseWithoutRecordingIsSkipped(_ recorded: RecordedCase) {
        #expect(!recorded.recordingCase.synthetic, "a synthetic case needs its recording")
        print("skipped \(recorded.name): a live case with no recording yet")
    }
}

/// The real pages of the corpus, imported at run time into a temporary HAR at their original
/// URL (API responses at their API URL) and replayed through the pipeline.
@Suite("Corpus responses replayed", .tags(.corpus))
struct CorpusReplayTests {
    /// Entries whose media are not all found today, with how many are: recall moving either
    /// way shows as a failure, so the table is kept true. The reddit link post's `<video>`
    /// preview is found; the post's target, an imgur `.gifv`, is not.
    static let knownShortfalls: [String: Int] = [
        "reddit/redesign-post-external-imgur-gifv.html": 1
    ]

    /// Every entry: all its expected media found (or exactly its known shortfall), and an
    /// entry that expects none (a still photo, a negative) yields none.
    @Test(arguments: try Corpus.siteEntries())
    func replaysThroughThePipeline(_ entry: Corpus.SiteEntry) async throws {
        let media = try await CorpusReplay.resolve(entry)
        let urls = Set(media.flatMap(\.allURLs).map(CanonicalURL.key))
        let found = entry.expected_media.filter { urls.contains(CanonicalURL.key($0)) }
        let expected = Self.knownShortfalls[entry.file] ?? entry.expected_media.count
        #expect(
            found.count == expected,
            "\(entry.file): \(found.count) of \(entry.expected_media.count) found, missing \(Set(entry.expected_media).subtracting(found))")
        #expect(!entry.expected_media.isEmpty || media.isEmpty, "\(entry.file) expects no media, found \(media.flatMap(\.allURLs))")
    }
}

extension CorpusReplayTests {
    /// The same over the whole manifest, as one figure.
    @Test func overallRecall() async throws {
        var expected = 0
        var found = 0
        for entry in try Corpus.siteEntries() {
            let urls = Set(try await CorpusReplay.resolve(entry).flatMap(\.allURLs).map(CanonicalURL.key))
            expected += entry.expected_media.count
            found += entry.expected_media.filter { urls.contains(CanonicalURL.key($0)) }.count
        }
        print("replayed generic-parser recall over the corpus: \(found)/\(expected)")
        #expect(Double(found) >= 0.6 * Double(expected))
    }
}

enum CorpusReplay {
    /// Imports the entry's file into a temporary HAR at its URL and resolves the URL from it.
    static func resolve(_ entry: Corpus.SiteEntry) async throws -> [Media] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-corpus-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = folder.appendingPathComponent("case.har")
        try HARImporter.har(file: entry.path, url: entry.url).write(to: archive)
        let provider = SearchProvider(.init(replay: try TrawlConfiguration.Replay(path: archive)))
        var sets: [ResultSet] = []
        for try await set in provider.results(for: Request(entry.url)) { sets.append(set) }
        return MediaCollection(sets.flatMap(\.media)).media
    }
}
