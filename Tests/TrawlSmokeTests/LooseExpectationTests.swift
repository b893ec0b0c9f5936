import Foundation
import Testing
import TrawlCore
import TrawlRecordings
import TrawlSmoke

/// The loose expectations of live cases, judged by the same `CaseVerdict` as replayed cases,
/// and the exit status of a run.
@Suite("Loose expectations and exit statuses")
struct LooseExpectationTests {
    let giphy = RecordingCase.Expectation(minResults: 1, fields: [.title], hosts: ["media*.giphy.com", "i.giphy.com"], kinds: [.gif, .mp4])

    func media(_ url: String, _ kind: MediaKind, title: String? = "No", renditions: [Rendition] = [], parser: String = "giphy-page") -> Media {
        Media(url: url, kind: kind, title: title, renditions: renditions, provenance: Provenance(parser: parser, origin: .document))
    }

    @Test(arguments: [
        ("media.giphy.com", true), ("media2.giphy.com", true), ("i.giphy.com", true), ("giphy.com", false),
        ("media2.giphy.com.evil.example", false), ("static.giphy.com", false),
    ])
    func hostsMatchTheirPatterns(_ host: String, _ matches: Bool) {
        #expect(giphy.looselyMatches(media("https://\(host)/media/x/giphy.gif", .gif)) == matches)
    }

    @Test func aWildcardPrefixNeedsASubdomain() {
        let tumblr = RecordingCase.Expectation(hosts: ["*.media.tumblr.com"], kinds: [.mp4])
        #expect(tumblr.looselyMatches(media("https://va.media.tumblr.com/tumblr_x.mp4", .mp4)))
        #expect(!tumblr.looselyMatches(media("https://media.tumblr.com/tumblr_x.mp4", .mp4)))
    }

    @Test func aRenditionOnTheHostCountsAStillDoesNot() {
        let still = media("https://media2.giphy.com/media/x/giphy_s.jpg", .still)
        #expect(!giphy.looselyMatches(still))
        var withRendition = media("https://cdn.other.example/x.gif", .gif)
        withRendition.renditions = [Rendition(url: "https://media1.giphy.com/media/x/giphy.mp4", kind: .mp4)]
        #expect(giphy.looselyMatches(withRendition))
    }

    @Test func theVerdictPassesFailsOnAnotherHostAndDegradesThroughAFallback() {
        let pass = CaseVerdict.judge([ResultSet(media: [media("https://media2.giphy.com/media/x/giphy.gif", .gif)])], against: giphy)
        #expect(pass.outcome == .pass, "\(pass)")

        let moved = CaseVerdict.judge([ResultSet(media: [media("https://cdn.gifs.example/x/giphy.gif", .gif)])], against: giphy)
        #expect(moved.outcome == .fail && !moved.onlyFieldsMissing && !moved.metByFallback)
        #expect(moved.reasons.first == "0 results of gif or mp4 on media*.giphy.com, i.giphy.com, at least 1 expected (media found on cdn.gifs.example)")

        let degradation = Degradation(failures: [.init(parser: "giphy-page", reason: "no inline gif object")], answeredBy: "opengraph")
        let fallback = CaseVerdict.judge(
            [ResultSet(media: [media("https://media3.giphy.com/x/giphy.mp4", .mp4, parser: "opengraph")], degradation: degradation)], against: giphy)
        #expect(fallback.outcome == .fail && fallback.metByFallback && fallback.degradations == [degradation])

        let untitled = CaseVerdict.judge([ResultSet(media: [media("https://i.giphy.com/x.gif", .gif, title: nil)])], against: giphy)
        #expect(untitled.outcome == .fail && untitled.onlyFieldsMissing)

        let nothing = CaseVerdict.judge([], against: giphy)
        #expect(nothing.outcome == .fail && nothing.reasons.contains { $0.hasPrefix("0 results of gif or mp4") })
    }

    @Test func looseKeysRoundTripAndStayOutOfExactCases() throws {
        let encoded = try JSONEncoder().encode(giphy)
        #expect(try JSONDecoder().decode(RecordingCase.Expectation.self, from: encoded) == giphy)
        let exact = String(decoding: try JSONEncoder().encode(RecordingCase.Expectation(media: [.exact("https://a.example/x.gif")])), as: UTF8.self)
        #expect(!exact.contains("hosts") && !exact.contains("kinds"))
    }

    @Test func aLiveCaseMayLackItsRecordingASyntheticOneMayNot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-cases-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let live = RecordedCase.files(named: "giphy/live", in: folder)
        try RecordingCase(input: "https://giphy.com/gifs/x-1", expect: giphy).write(to: live.caseFile)
        let cases = try RecordedCase.all(in: folder)
        #expect(cases.map(\.name) == ["giphy/live"] && cases.first?.hasRecording == false)

        let synthetic = RecordedCase.files(named: "giphy/modelled", in: folder)
        try RecordingCase(input: "https://giphy.com/gifs/y-2", synthetic: true, expect: giphy).write(to: synthetic.caseFile)
        #expect(throws: RecordingError.self) { try RecordedCase.all(in: folder) }
    }

    func results(_ statuses: [SmokeStatus]) -> [SmokeResult] {
        statuses.enumerated().map { SmokeResult(name: "site/\($0.offset)", site: "site", input: "x", status: $0.element) }
    }

    @Test(arguments: [
        ([SmokeStatus.pass, .pass], SmokeStatus.degraded, Int32(0)),
        ([.pass, .skipped], .degraded, 0),
        ([.pass, .degraded], .degraded, 1),
        ([.pass, .degraded], .fail, 0),
        ([.degraded, .fail, .skipped], .fail, 1),
        ([.skipped, .skipped], .degraded, 4),
        ([.skipped], .fail, 4),
    ])
    func exitStatuses(_ statuses: [SmokeStatus], _ failOn: SmokeStatus, _ expected: Int32) {
        #expect(SmokeReport(results: results(statuses)).exitStatus(failOn: failOn) == expected)
    }

    @Test func aSiteIsTheWorstOfItsCheckedCasesAndSkippedOnlyWhenNoneWasChecked() {
        func site(_ statuses: [SmokeStatus]) -> SmokeStatus? { SmokeReport(results: results(statuses)).sites.first?.status }
        #expect(site([.pass, .skipped]) == .pass)
        #expect(site([.skipped, .degraded, .pass]) == .degraded)
        #expect(site([.fail, .degraded]) == .fail)
        #expect(site([.skipped, .skipped]) == .skipped)
    }
}
