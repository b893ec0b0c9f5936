import Foundation
import TrawlCore
package import TrawlRecordings

/// What changed between a recording and what the site serves now: the JSON paths (array
/// indices folded to `[]`) or the page's meta keys and script ids that were recorded but are
/// gone. The first thing to read when a case stops passing.
package enum PayloadDiff {
    /// Up to `limit` vanished paths, comparing entries that answer the same request.
    package static func vanished(recorded: [HAREntry], live: [HAREntry], matcher: ReplayMatcher = ReplayMatcher(), limit: Int = 12) -> [String] {
        var liveByKey: [String: HAREntry] = [:]
        for entry in live { liveByKey[matcher.looseKey(method: entry.request.method, url: entry.request.url)] = entry }
        var gone: [String] = []
        for old in recorded {
            let key = matcher.looseKey(method: old.request.method, url: old.request.url)
            guard let new = liveByKey[key] else {
                gone.append("request \(Redaction.url(old.request.url)) was not made")
                continue
            }
            guard let before = old.response.content.body, let after = new.response.content.body else { continue }
            let removed = features(of: before).subtracting(features(of: after)).sorted()
            gone += removed.map { "\($0) (in \(URL(string: old.request.url)?.host ?? "?"))" }
        }
        return Array(gone.prefix(limit))
    }

    /// JSON key paths, or for HTML its `meta` keys and `script` ids.
    static func features(of body: Data) -> Set<String> {
        if let json = try? JSONValue(parsing: body) {
            var paths = Set<String>()
            collect(json, path: "$", into: &paths)
            return paths
        }
        let text = String(decoding: body.prefix(4 << 20), as: UTF8.self)
        var found = Set<String>()
        for pattern in [#"<meta[^>]+(?:property|name)=["']([^"']+)["']"#, #"<script[^>]+id=["']([^"']+)["']"#] {
            guard let regex = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else { continue }
            for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) {
                    found.insert((pattern.contains("meta") ? "meta " : "script#") + text[range].lowercased())
                }
            }
        }
        return found
    }

    static func collect(_ value: JSONValue, path: String, into paths: inout Set<String>) {
        guard paths.count < 5000 else { return }
        if let object = value.object {
            for (key, child) in object {
                let next = path + "." + key
                paths.insert(next)
                collect(child, path: next, into: &paths)
            }
        } else if let array = value.array {
            for child in array.prefix(50) { collect(child, path: path + "[]", into: &paths) }
        }
    }
}
