import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlParsers
import TrawlRecordings
import TrawlTesting

/// The dev set's real responses replayed offline through the default provider, at their
/// original URL (site parsers and generic ones) and on an unknown host (generic parsers
/// only). The floors are the figures measured when the set was added, less 0.01: a change
/// that loses media or returns more that are not the page's own fails here. Raise them as
/// the figures rise; `trawl-bench devset` prints the breakdown by site and trap class.
@Suite("Dev set accuracy floors")
struct DevSetTests {
    // The figures in Benchmarks/RESULTS.md (142 responses): site parsers recall 343/345 = 0.994,
    // precision 148/149 = 0.993; generic only recall 343/345 = 0.994, precision 209/217 = 0.963.
    static let recallFloor = 0.984
    static let precisionFloor = 0.983
    static let genericRecallFloor = 0.984
    static let genericPrecisionFloor = 0.953

    /// One response replayed at `url`; its media's URLs, or `nil` when the resolve failed.
    static func resolve(_ entry: DevSet.Entry, at url: String) async -> [[String]]? {
        do {
            let replay =
                entry.kind == "har"
                ? try TrawlConfiguration.Replay(path: entry.path)
                // Served as saved: a scrubbed copy would no longer carry the labelled URLs.
                : TrawlConfiguration.Replay(entries: [
                    HARImporter.entry(body: try Data(contentsOf: entry.path), url: url, fileName: entry.path.lastPathComponent)
                ])
            var sets: [ResultSet] = []
            for try await set in SearchProvider(.init(replay: replay)).results(for: Request(url)) { sets.append(set) }
            return MediaCollection(sets.flatMap(\.media)).media.map(\.allURLs)
        } catch {
            return nil
        }
    }

    static func describe(_ name: String, _ tally: DevSet.Tally) -> String {
        String(
            format: "%@: recall %d/%d = %.3f, precision %d/%d = %.3f, %d of %d resolves failed",
            name, tally.found, tally.expected, tally.recall, tally.right, tally.results, tally.precision, tally.failures, tally.pages)
    }

    @Test(.tags(.corpus)) func overallRecallAndPrecisionHoldTheirFloors() async throws {
        var report = DevSet.Report()
        var genericOnly = DevSet.Tally()
        for entry in try DevSet.entries() {
            report.add(DevSet.score(expected: entry.expected_media, results: await Self.resolve(entry, at: entry.url)), for: entry)
            genericOnly = genericOnly + DevSet.score(expected: entry.expected_media, results: await Self.resolve(entry, at: entry.unknownHostURL))
        }
        let withSites = report.overall
        print(Self.describe("dev set, site parsers", withSites))
        print(Self.describe("dev set, generic only", genericOnly))
        for (site, tally) in report.bySite.sorted(by: { $0.key < $1.key }) { print(Self.describe("  site \(site)", tally)) }
        for (trap, tally) in report.byTrap.sorted(by: { $0.key < $1.key }) { print(Self.describe("  class \(trap)", tally)) }
        #expect(withSites.recall >= Self.recallFloor, "\(Self.describe("site parsers", withSites))")
        #expect(withSites.precision >= Self.precisionFloor, "\(Self.describe("site parsers", withSites))")
        #expect(genericOnly.recall >= Self.genericRecallFloor, "\(Self.describe("generic only", genericOnly))")
        #expect(genericOnly.precision >= Self.genericPrecisionFloor, "\(Self.describe("generic only", genericOnly))")
    }

    /// The set stays what the floors were measured on: every listed file is there, parses as
    /// its kind, stays under 1 MB, is credited in NOTICE, and its labels use the known classes.
    @Test(.tags(.corpus)) func manifestMatchesTheFilesAndNotice() throws {
        let entries = try DevSet.entries()
        let notice = try String(contentsOf: DevSet.folder.appendingPathComponent("NOTICE"), encoding: .utf8)
        let classes: Set<String> = [
            "no-media", "related-posts", "comments", "ui-gif", "tracking-pixel", "placeholder", "state-object", "rendition", "duplicate-upload",
        ]
        #expect(entries.count >= 120)
        #expect(Set(entries.map(\.site)).count >= 25)
        #expect(entries.filter(\.expected_media.isEmpty).count * 4 >= entries.count)
        #expect(Set(entries.map(\.file)).count == entries.count)
        for entry in entries {
            let data = try Data(contentsOf: entry.path)
            #expect(!data.isEmpty && data.count <= 1_000_000, "\(entry.file): \(data.count) bytes")
            #expect(["html", "json", "har"].contains(entry.kind), "\(entry.file): kind \(entry.kind)")
            if entry.kind != "html" { #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "\(entry.file) is not JSON") }
            #expect(URL(string: entry.url)?.host != nil, "\(entry.file): \(entry.url)")
            #expect(
                notice.contains(entry.file) && notice.contains(entry.source_repo) && notice.contains(entry.commit), "\(entry.file) is not credited in NOTICE")
            #expect(Set(entry.traps).isSubset(of: classes), "\(entry.file): \(entry.traps)")
            #expect(entry.expected_media.isEmpty == entry.traps.contains("no-media"), "\(entry.file): no-media and expected_media disagree")
        }
    }

    @Test func unknownHostKeepsPathAndQuery() {
        #expect(DevSet.onUnknownHost("https://giphy.com/gifs/a-b?x=1") == "https://\(DevSet.unknownHost)/gifs/a-b?x=1")
        #expect(DevSet.onUnknownHost("http://api.reddit.com/.json?limit=5") == "https://\(DevSet.unknownHost)/.json?limit=5")
        #expect(DevSet.onUnknownHost("https://example.org") == "https://\(DevSet.unknownHost)/")
        #expect(DevSet.onUnknownHost("https://example.org?q=1") == "https://\(DevSet.unknownHost)/?q=1")
    }
}
