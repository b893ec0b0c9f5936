import Foundation

extension SmokeReport {
    /// The page: a summary by site (with the last runs from `history`, newest first), then every
    /// case with its status, time, reasons, what vanished, and thumbnails linked to the media.
    package func html(history: [SmokeReport] = []) -> String {
        var page = """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Trawl smoke \(escape(started))</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin-bottom:2em}
            td,th{border:1px solid #ddd;padding:.4em .6em;vertical-align:top;text-align:left}
            .pass{background:#e6f6e6}.degraded{background:#fff4d6}.fail{background:#fde2e2}.skipped{background:#eee}
            .thumbs img{height:64px;margin:2px;border:1px solid #ccc}.thumbs a{display:inline-block}small{color:#666}
            </style></head><body>
            <h1>Trawl smoke run</h1><p>\(escape(started)) · \(results.count) cases · \(SmokeStatus.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: " · "))</p>
            \(checkedNothing ? "<p class=\"skipped\"><strong>Nothing was checked: every case was skipped.</strong></p>" : "")
            <h2>Sites</h2><table><tr><th>site</th><th>now</th>
            """
        let past = history.suffix(9).reversed()
        for run in past { page += "<th><small>\(escape(run.started))</small></th>" }
        page += "</tr>\n"
        for (site, status) in sites {
            page += "<tr><td>\(escape(site))</td><td class=\"\(status.rawValue)\">\(status.rawValue)</td>"
            for run in past {
                let cases = run.results.filter { $0.site == site }
                let old = cases.isEmpty ? nil : Self.status(of: cases)
                page += old.map { "<td class=\"\($0.rawValue)\">\($0.rawValue)</td>" } ?? "<td>–</td>"
            }
            page += "</tr>\n"
        }
        page += "</table>\n<h2>Cases</h2><table><tr><th>case</th><th>status</th><th>time</th><th>why</th><th>found</th></tr>\n"
        for result in results {
            let why = result.explanation.map(escape).joined(separator: "<br>")
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
}
