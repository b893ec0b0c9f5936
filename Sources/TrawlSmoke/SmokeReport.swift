package import Foundation
import TrawlCore

/// A smoke run's results as reports: JUnit XML for CI, JSON for tools, and one self-contained
/// HTML page for people (a table by site with status, timing, reason and thumbnails).
package struct SmokeReport: Sendable, Codable {
    package var started: String
    package var results: [SmokeResult]

    package init(started: Date = Date(), results: [SmokeResult]) {
        self.started = started.formatted(.iso8601)
        self.results = results
    }

    /// Counts per status.
    package var counts: [SmokeStatus: Int] { Dictionary(grouping: results, by: \.status).mapValues(\.count) }

    /// Each site's status: the worst of its checked cases; skipped only when none was checked.
    package var sites: [(site: String, status: SmokeStatus)] {
        Dictionary(grouping: results, by: \.site).map { ($0.key, Self.status(of: $0.value)) }.sorted { $0.site < $1.site }
    }

    /// The worst status of the cases that were checked, or skipped if none was.
    static func status(of cases: [SmokeResult]) -> SmokeStatus {
        cases.map(\.status).filter { $0 != .skipped }.max() ?? .skipped
    }

    // MARK: JSON

    package func json() throws -> Data {
        try TrawlJSON.encoder(pretty: true).encode(self)
    }

    // MARK: history

    /// Earlier runs from a history file (one JSON report per line); none if it does not exist.
    package static func history(at file: URL) -> [SmokeReport] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(SmokeReport.self, from: Data($0.utf8)) }
    }

    /// Appends this run to a history file.
    package func append(toHistory file: URL) throws {
        var line = try TrawlJSON.encoder().encode(self)
        line.append(0x0A)
        if let handle = try? FileHandle(forWritingTo: file) {
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: line)
        } else {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try line.write(to: file)
        }
    }

    /// The exit status `trawl smoke` documents: 2 with failures; 1 with degraded cases when
    /// they count (`failOn` `.degraded`); 4 (``nothingChecked``) when every case was skipped
    /// (no network, every site down, no keys), so that a nightly job notices instead of going
    /// green; else 0 (passes, perhaps beside some skipped cases).
    package func exitStatus(failOn: SmokeStatus) -> Int32 {
        // As "no media" is for resolve: the run worked, some case did not pass (reports say which).
        if results.contains(where: { $0.status == .fail }) { return 1 }
        if failOn == .degraded, results.contains(where: { $0.status == .degraded }) { return 1 }
        if checkedNothing { return Self.nothingChecked }
        return 0
    }

    /// The exit status of a run in which every case was skipped.
    package static let nothingChecked: Int32 = 4

    /// Whether every case was skipped: nothing about the sites was learnt.
    package var checkedNothing: Bool { !results.isEmpty && results.allSatisfy { $0.status == .skipped } }
}
