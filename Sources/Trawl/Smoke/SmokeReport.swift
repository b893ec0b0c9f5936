import Foundation

/// A smoke run's results as reports: JUnit XML for CI, JSON for tools, and one self-contained
/// HTML page for people (a table by site with status, timing, reason and thumbnails).
public struct SmokeReport: Sendable, Codable {
    public var started: String
    public var results: [SmokeResult]

    public init(started: Date = Date(), results: [SmokeResult]) {
        self.started = started.formatted(.iso8601)
        self.results = results
    }

    /// Counts per status.
    public var counts: [SmokeStatus: Int] { Dictionary(grouping: results, by: \.status).mapValues(\.count) }

    /// The worst status per site.
    public var sites: [(site: String, status: SmokeStatus)] {
        Dictionary(grouping: results, by: \.site).map { ($0.key, $0.value.map(\.status).max() ?? .pass) }.sorted { $0.site < $1.site }
    }

    // MARK: JSON

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    // MARK: JUnit

    /// One `testsuite` per site, one `testcase` per case; fail → `<failure>`, degraded →
    /// `<failure type="degraded">`, skipped → `<skipped>`.
    public func junit() -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let failures = results.filter { $0.status == .fail || $0.status == .degraded }.count
        let skipped = results.filter { $0.status == .skipped }.count
        xml += #"<testsuites name="trawl smoke" tests="\#(results.count)" failures="\#(failures)" skipped="\#(skipped)" time="\#(time(results))">"# + "\n"
        for (site, cases) in Dictionary(grouping: results, by: \.site).sorted(by: { $0.key < $1.key }) {
            let f = cases.filter { $0.status == .fail || $0.status == .degraded }.count
            let s = cases.filter { $0.status == .skipped }.count
            xml += #"  <testsuite name="\#(escape(site))" tests="\#(cases.count)" failures="\#(f)" skipped="\#(s)" time="\#(time(cases))" timestamp="\#(started)">"# + "\n"
            for result in cases {
                xml += #"    <testcase classname="smoke.\#(escape(site))" name="\#(escape(result.name))" time="\#(String(format: "%.3f", result.seconds))">"#
                let message = escape((result.reasons + result.vanished.map { "vanished: \($0)" }).joined(separator: "; "))
                switch result.status {
                case .pass: break
                case .degraded: xml += "\n" + #"      <failure type="degraded" message="\#(message)">\#(message)</failure>"# + "\n    "
                case .fail: xml += "\n" + #"      <failure type="fail" message="\#(message)">\#(message)</failure>"# + "\n    "
                case .skipped: xml += "\n" + #"      <skipped message="\#(message)"/>"# + "\n    "
                }
                xml += "</testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    func time(_ results: [SmokeResult]) -> String { String(format: "%.3f", results.reduce(0) { $0 + $1.seconds }) }

    // MARK: HTML

    /// The page: a summary by site (with the last runs from `history`, newest first), then every
    /// case with its status, time, reasons, what vanished, and thumbnails linked to the media.
    public func html(history: [SmokeReport] = []) -> String {
        var page = """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Trawl smoke \(escape(started))</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin-bottom:2em}
            td,th{border:1px solid #ddd;padding:.4em .6em;vertical-align:top;text-align:left}
            .pass{background:#e6f6e6}.degraded{background:#fff4d6}.fail{background:#fde2e2}.skipped{background:#eee}
            .thumbs img{height:64px;margin:2px;border:1px solid #ccc}.thumbs a{display:inline-block}small{color:#666}
            </style></head><body>
            <h1>Trawl smoke run</h1><p>\(escape(started)) · \(results.count) cases · \(SmokeStatus.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: " · "))</p>
            <h2>Sites</h2><table><tr><th>site</th><th>now</th>
            """
        let past = history.suffix(9).reversed()
        for run in past { page += "<th><small>\(escape(run.started))</small></th>" }
        page += "</tr>\n"
        for (site, status) in sites {
            page += "<tr><td>\(escape(site))</td><td class=\"\(status.rawValue)\">\(status.rawValue)</td>"
            for run in past {
                let old = run.results.filter { $0.site == site }.map(\.status).max()
                page += old.map { "<td class=\"\($0.rawValue)\">\($0.rawValue)</td>" } ?? "<td>–</td>"
            }
            page += "</tr>\n"
        }
        page += "</table>\n<h2>Cases</h2><table><tr><th>case</th><th>status</th><th>time</th><th>why</th><th>found</th></tr>\n"
        for result in results {
            let why = (result.reasons.map(escape) + result.vanished.map { "vanished: " + escape($0) }).joined(separator: "<br>")
            let thumbs = result.media.prefix(8).map { media -> String in
                let picture = media.still ?? (media.kind == "gif" || media.kind == "webp" ? media.url : nil)
                let label = picture.map { "<img loading=\"lazy\" alt=\"\(escape(media.kind))\" src=\"\(escape($0))\">" } ?? escape(media.kind)
                return "<a href=\"\(escape(media.url))\" title=\"\(escape(media.url))\">\(label)</a>"
            }.joined()
            page += """
                <tr><td>\(escape(result.name))<br><small>\(escape(result.input))</small></td><td class="\(result.status.rawValue)">\(result.status.rawValue)\(result.rerecorded ? "<br><small>re-recorded</small>" : "")</td>\
                <td>\(String(format: "%.2f s", result.seconds))\(result.attempts > 1 ? "<br><small>\(result.attempts) attempts</small>" : "")</td><td>\(why)</td><td class="thumbs">\(thumbs)</td></tr>

                """
        }
        return page + "</table></body></html>\n"
    }

    func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }

    // MARK: history

    /// Earlier runs from a history file (one JSON report per line); none if it does not exist.
    public static func history(at file: URL) -> [SmokeReport] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(SmokeReport.self, from: Data($0.utf8)) }
    }

    /// Appends this run to a history file.
    public func append(toHistory file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = try encoder.encode(self)
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

    /// The exit status: 2 with failures, 1 with degraded cases when they count, else 0.
    public func exitStatus(failOn: SmokeStatus) -> Int32 {
        if results.contains(where: { $0.status == .fail }) { return 2 }
        if failOn == .degraded, results.contains(where: { $0.status == .degraded }) { return 1 }
        return 0
    }
}
